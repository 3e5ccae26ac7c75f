import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import type {
  AppDto,
  CreateAppRequest,
  SaveAsTemplateRequest,
  TemplateDto,
  UpdateAppRequest,
} from '@arrbiter/contracts';
import { firstValueFrom } from 'rxjs';

const BASE = '/api/admin/v1/apps';

/** Apps: one per client integration. */
@Injectable({ providedIn: 'root' })
export class AppsApiService {
  private readonly http = inject(HttpClient);

  list(): Promise<AppDto[]> {
    return firstValueFrom(this.http.get<AppDto[]>(BASE));
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

  /** Saves the app's proxies' effective allowlists as a new local template. */
  saveAsTemplate(id: string, request: SaveAsTemplateRequest): Promise<TemplateDto> {
    return firstValueFrom(this.http.post<TemplateDto>(`${BASE}/${id}/save-as-template`, request));
  }
}
