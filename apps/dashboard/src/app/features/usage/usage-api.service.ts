import { HttpClient, HttpParams } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import type {
  ProxyUsageResponse,
  UnauthorizedCallsResponse,
  UsageOverviewResponse,
  UsageQuery,
} from '@arrbiter/contracts';
import { firstValueFrom } from 'rxjs';

function params(query: UsageQuery): HttpParams {
  let result = new HttpParams();
  if (query.from) result = result.set('from', query.from);
  if (query.to) result = result.set('to', query.to);
  return result;
}

/** What the proxies were called for: hour by hour, per route, per app and per service. */
@Injectable({ providedIn: 'root' })
export class UsageApiService {
  private readonly http = inject(HttpClient);

  ofProxy(proxyId: string, query: UsageQuery): Promise<ProxyUsageResponse> {
    return firstValueFrom(
      this.http.get<ProxyUsageResponse>(`/api/admin/v1/proxies/${proxyId}/usage`, { params: params(query) }),
    );
  }

  overview(query: UsageQuery): Promise<UsageOverviewResponse> {
    return firstValueFrom(this.http.get<UsageOverviewResponse>('/api/admin/v1/usage', { params: params(query) }));
  }

  /** Calls refused with 401 (a wrong, inactive or missing key), per app and "unknown app"; one app's with `appId`. */
  unauthorized(query: UsageQuery & { appId?: string }): Promise<UnauthorizedCallsResponse> {
    let search = params(query);
    if (query.appId) search = search.set('appId', query.appId);
    return firstValueFrom(
      this.http.get<UnauthorizedCallsResponse>('/api/admin/v1/usage/unauthorized', { params: search }),
    );
  }
}
