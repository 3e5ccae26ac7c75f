import { HttpClient, HttpParams } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import type {
  AppDto,
  CloneAppRequest,
  CreateAppRequest,
  ListAppsQuery,
  Page,
  SaveAsTemplateRequest,
  TemplateDto,
  UpdateAppRequest,
} from '@arrbiter/contracts';
import { firstValueFrom } from 'rxjs';

const BASE = '/api/admin/v1/apps';

/** The largest page the server hands out. */
const MAX_PAGE = 200;

/** The filters of the apps list, without paging. */
export type AppFilter = Omit<ListAppsQuery, 'limit' | 'cursor'>;

/** Apps: one per client integration. */
@Injectable({ providedIn: 'root' })
export class AppsApiService {
  private readonly http = inject(HttpClient);

  /** One page of apps by name (`cursor`: the previous page's `nextCursor`); empty filters are not sent. */
  list(query: ListAppsQuery = {}): Promise<Page<AppDto>> {
    let params = new HttpParams();
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined && value !== null && value !== '') params = params.set(key, String(value));
    }
    return firstValueFrom(this.http.get<Page<AppDto>>(BASE, { params }));
  }

  /** Every app (matching `filter`), page after page: for views that need all of them at once. */
  async listAll(filter: AppFilter = {}): Promise<AppDto[]> {
    const apps: AppDto[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.list({ ...filter, limit: MAX_PAGE, cursor });
      apps.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    return apps;
  }

  get(id: string): Promise<AppDto> {
    return firstValueFrom(this.http.get<AppDto>(`${BASE}/${id}`));
  }

  create(request: CreateAppRequest): Promise<AppDto> {
    return firstValueFrom(this.http.post<AppDto>(BASE, request));
  }

  update(id: string, request: UpdateAppRequest): Promise<AppDto> {
    return firstValueFrom(this.http.patch<AppDto>(`${BASE}/${id}`, request));
  }

  remove(id: string): Promise<void> {
    return firstValueFrom(this.http.delete<void>(`${BASE}/${id}`));
  }

  /** A new app with this one's template, state and proxies (new keys). */
  clone(id: string, request: CloneAppRequest): Promise<AppDto> {
    return firstValueFrom(this.http.post<AppDto>(`${BASE}/${id}/clone`, request));
  }

  /** Saves the app's proxies' effective allowlists as a new local template. */
  saveAsTemplate(id: string, request: SaveAsTemplateRequest): Promise<TemplateDto> {
    return firstValueFrom(this.http.post<TemplateDto>(`${BASE}/${id}/save-as-template`, request));
  }
}
