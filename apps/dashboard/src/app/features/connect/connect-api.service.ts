import { HttpClient, HttpParams } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import type { ClientInstructionsDto, ConnectClientRequest, ConnectClientResponse } from '@arrbiter/contracts';
import { firstValueFrom } from 'rxjs';

/** Connecting a known client: one app, one proxy per service, and what to type into the client. */
@Injectable({ providedIn: 'root' })
export class ConnectApiService {
  private readonly http = inject(HttpClient);

  /** Creates the app and its proxies; the answer holds the keys (once) and the set-up instructions. */
  connect(clientId: string, request: ConnectClientRequest): Promise<ConnectClientResponse> {
    return firstValueFrom(
      this.http.post<ConnectClientResponse>(
        `/api/admin/v1/known-clients/${encodeURIComponent(clientId)}/connect`,
        request,
      ),
    );
  }

  /** What to type into the client's settings for one proxy; `client` defaults to the app's client. */
  instructions(proxyId: string, client?: string | null): Promise<ClientInstructionsDto> {
    const params = client ? new HttpParams().set('client', client) : undefined;
    return firstValueFrom(
      this.http.get<ClientInstructionsDto>(`/api/admin/v1/proxies/${proxyId}/instructions`, { params }),
    );
  }
}
