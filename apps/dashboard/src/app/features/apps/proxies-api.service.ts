import { HttpClient, HttpParams } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import type {
  AllowlistResponse,
  ApplyFitRequest,
  ApplyFitResponse,
  EndpointsResponse,
  LearnedGrantResponse,
  Page,
  ProxyConfigRequest,
  ProxyConfigSaveResponse,
  ProxyConnectionDto,
  ProxyDetailsDto,
  ProxyDefaults,
  ProxyDto,
  ProxyFitResponse,
  RecentCallsResponse,
  RevisionDiffResponse,
  RevisionDto,
  RotateKeyRequest,
  RotateKeyResponse,
  StartLearningRequest,
} from '@arrbiter/contracts';
import { firstValueFrom } from 'rxjs';
import { AllowlistDraft } from './proxy/allowlist-draft';

const BASE = '/api/admin/v1/proxies';

/** Drops empty query values so that `?search=` is not sent as a filter. */
function params(values: Record<string, string | number | null | undefined>): HttpParams {
  let result = new HttpParams();
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined && value !== null && value !== '') result = result.set(key, String(value));
  }
  return result;
}

/** Proxies of an app: connection details, key, permissions, learning mode and history. */
@Injectable({ providedIn: 'root' })
export class ProxiesApiService {
  private readonly http = inject(HttpClient);

  listForApp(appId: string): Promise<ProxyDto[]> {
    return firstValueFrom(this.http.get<ProxyDto[]>(`/api/admin/v1/apps/${appId}/proxies`));
  }

  create(appId: string, serviceId: string): Promise<ProxyConnectionDto> {
    return firstValueFrom(this.http.post<ProxyConnectionDto>(`/api/admin/v1/apps/${appId}/proxies`, { serviceId }));
  }

  /** Connection details; without `key` for a viewer. */
  get(id: string): Promise<ProxyDetailsDto> {
    return firstValueFrom(this.http.get<ProxyDetailsDto>(`${BASE}/${id}`));
  }

  /** "First calls, live": arms recording for 10 minutes (each call extends it) and answers this replica's. */
  recentCalls(id: string): Promise<RecentCallsResponse> {
    return firstValueFrom(this.http.get<RecentCallsResponse>(`${BASE}/${id}/recent-calls`));
  }

  setActive(id: string, active: boolean): Promise<ProxyDto> {
    return firstValueFrom(this.http.patch<ProxyDto>(`${BASE}/${id}`, { active }));
  }

  remove(id: string): Promise<void> {
    return firstValueFrom(this.http.delete<void>(`${BASE}/${id}`));
  }

  /** A new key; the old one keeps working for `graceMinutes` (0: it stops at once). */
  rotateKey(id: string, graceMinutes = 0): Promise<RotateKeyResponse> {
    const body: RotateKeyRequest = { graceMinutes };
    return firstValueFrom(this.http.post<RotateKeyResponse>(`${BASE}/${id}/rotate-key`, body));
  }

  /** Ends the previous key's grace period now. */
  endGrace(id: string): Promise<void> {
    return firstValueFrom(this.http.delete<void>(`${BASE}/${id}/previous-key`));
  }

  allowlist(id: string): Promise<AllowlistResponse> {
    return firstValueFrom(this.http.get<AllowlistResponse>(`${BASE}/${id}/allowlist`));
  }

  /** Saves the full overrides map and the active state (a `manual` revision). */
  saveConfig(id: string, request: ProxyConfigRequest): Promise<ProxyConfigSaveResponse> {
    return firstValueFrom(this.http.put<ProxyConfigSaveResponse>(`${BASE}/${id}/config`, request));
  }

  /**
   * One method on one route granted or taken away, on top of the configuration as it is saved now (not
   * as a page loaded it), and saved with the proxy's state: one `manual` revision.
   */
  async setGrant(id: string, path: string, method: string, granted: boolean): Promise<AllowlistResponse> {
    const [saved, proxy] = await Promise.all([this.allowlist(id), this.get(id)]);
    const draft = AllowlistDraft.from(saved.template, saved.overrides).set(path, method, granted);
    return this.saveConfig(id, { overrides: draft.overrides, active: proxy.active });
  }

  /** The rate limit and scrubbing, saved with the current overrides and state (a `manual` revision). */
  async saveLimits(proxy: ProxyDto, limits: ProxyDefaults): Promise<void> {
    const { overrides } = await this.allowlist(proxy.id);
    await this.saveConfig(proxy.id, { overrides, active: proxy.active, ...limits });
  }

  defaults(): Promise<ProxyDefaults> {
    return firstValueFrom(this.http.get<ProxyDefaults>('/api/admin/v1/settings/proxy-defaults'));
  }

  saveDefaults(defaults: ProxyDefaults): Promise<ProxyDefaults> {
    return firstValueFrom(this.http.put<ProxyDefaults>('/api/admin/v1/settings/proxy-defaults', defaults));
  }

  endpoints(id: string, filter: { search?: string; tag?: string } = {}): Promise<EndpointsResponse> {
    return firstValueFrom(
      this.http.get<EndpointsResponse>(`${BASE}/${id}/endpoints`, { params: params({ ...filter }) }),
    );
  }

  revisions(id: string, page: { limit?: number; cursor?: string | null } = {}): Promise<Page<RevisionDto>> {
    return firstValueFrom(
      this.http.get<Page<RevisionDto>>(`${BASE}/${id}/revisions`, {
        params: params({ limit: page.limit, cursor: page.cursor }),
      }),
    );
  }

  revisionDiff(id: string, revisionId: string): Promise<RevisionDiffResponse> {
    return firstValueFrom(this.http.get<RevisionDiffResponse>(`${BASE}/${id}/revisions/${revisionId}/diff`));
  }

  restoreRevision(id: string, revisionId: string): Promise<RevisionDto> {
    return firstValueFrom(this.http.post<RevisionDto>(`${BASE}/${id}/revisions/${revisionId}/restore`, {}));
  }

  /** Takes back exactly the grants `revisionId` added (an `undo` revision); 409 when any changed since. */
  async undoRevision(id: string, revisionId: string): Promise<RevisionDto> {
    const response = await firstValueFrom(
      this.http.post<{ revision: RevisionDto }>(`${BASE}/${id}/revisions/${revisionId}/undo`, {}),
    );
    return response.revision;
  }

  startLearning(id: string, until: string): Promise<ProxyDto> {
    const body: StartLearningRequest = { until };
    return firstValueFrom(this.http.post<ProxyDto>(`${BASE}/${id}/learning`, body));
  }

  stopLearning(id: string): Promise<ProxyDto> {
    return firstValueFrom(this.http.delete<ProxyDto>(`${BASE}/${id}/learning`));
  }

  /**
   * How the proxy's allowlist fits a known client: the calls it refuses and the grants the client never
   * uses. Without `client`, the app's known client (404 when there is none); with `unusedDays`, only the
   * grants the proxy has not seen called for that many days are unused.
   */
  fit(id: string, client?: string | null, unusedDays?: number | null): Promise<ProxyFitResponse> {
    return firstValueFrom(
      this.http.get<ProxyFitResponse>(`${BASE}/${id}/fit`, { params: params({ client, unusedDays }) }),
    );
  }

  /**
   * Grants the client's refused calls (the sensitive ones only as named in `include.sensitive`) and/or
   * revokes exactly the grants listed in `revoke`: one `client-fit` revision.
   */
  applyFit(id: string, request: ApplyFitRequest): Promise<ApplyFitResponse> {
    return firstValueFrom(this.http.post<ApplyFitResponse>(`${BASE}/${id}/fit/apply`, request));
  }

  /** Grants every route learned while in learning mode. */
  grantLearned(id: string): Promise<LearnedGrantResponse> {
    return firstValueFrom(this.http.post<LearnedGrantResponse>(`${BASE}/${id}/learned/grant`, {}));
  }
}
