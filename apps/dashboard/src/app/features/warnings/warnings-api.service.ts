import { HttpClient, HttpParams } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import type {
  BulkWarningsRequest,
  BulkWarningsResponse,
  Page,
  WarningDto,
  WarningGrantRequest,
  WarningGrantResponse,
  WarningSort,
  WarningStatus,
} from '@arrbiter/contracts';
import { firstValueFrom } from 'rxjs';

const BASE = '/api/admin/v1/warnings';

export interface WarningFilter {
  appId?: string | null;
  proxyId?: string | null;
  status?: WarningStatus | null;
  /** Part of the route, the shape or the sample path. */
  q?: string | null;
  /** Server-side order (default `lastSeen`, `desc`). */
  sort?: WarningSort | null;
  order?: 'asc' | 'desc' | null;
  limit?: number;
  cursor?: string | null;
}

/** Refused proxy calls. */
@Injectable({ providedIn: 'root' })
export class WarningsApiService {
  private readonly http = inject(HttpClient);

  list(filter: WarningFilter = {}): Promise<Page<WarningDto>> {
    let params = new HttpParams();
    for (const [key, value] of Object.entries(filter)) {
      if (value !== undefined && value !== null && value !== '') params = params.set(key, String(value));
    }
    return firstValueFrom(this.http.get<Page<WarningDto>>(BASE, { params }));
  }

  /**
   * Adds the warning's method on its resolved route, else on its sample path, or on its shape with
   * `scope: 'shape'` (a `warning-grant` revision).
   */
  grant(id: string, request: WarningGrantRequest = {}): Promise<WarningGrantResponse> {
    return firstValueFrom(this.http.post<WarningGrantResponse>(`${BASE}/${id}/grant`, request));
  }

  dismiss(id: string): Promise<WarningDto> {
    return firstValueFrom(this.http.post<WarningDto>(`${BASE}/${id}/dismiss`, {}));
  }

  /** Grants up to 100 warnings; sensitive ones only with `confirmSensitive` (the rest say why they were skipped). */
  grantMany(request: BulkWarningsRequest): Promise<BulkWarningsResponse> {
    return firstValueFrom(this.http.post<BulkWarningsResponse>(`${BASE}/grant`, request));
  }

  dismissMany(ids: string[]): Promise<BulkWarningsResponse> {
    const body: BulkWarningsRequest = { ids };
    return firstValueFrom(this.http.post<BulkWarningsResponse>(`${BASE}/dismiss`, body));
  }

  /** How many warnings are open (for the navigation): one page of up to 200, `more` past it. */
  async openCount(): Promise<{ count: number; more: boolean }> {
    const page = await this.list({ status: 'open', limit: 200 });
    return { count: page.items.length, more: page.nextCursor !== null };
  }
}
