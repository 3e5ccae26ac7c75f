import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import type { KnownClientDto, KnownClientSummaryDto } from '@arrbiter/contracts';
import { firstValueFrom } from 'rxjs';

const BASE = '/api/admin/v1/known-clients';

/** The catalogue of known clients: what each integration calls, read from its own source. */
@Injectable({ providedIn: 'root' })
export class KnownClientsApiService {
  private readonly http = inject(HttpClient);

  list(): Promise<KnownClientSummaryDto[]> {
    return firstValueFrom(this.http.get<KnownClientSummaryDto[]>(BASE));
  }

  /** One client with its calls per service type. */
  get(id: string): Promise<KnownClientDto> {
    return firstValueFrom(this.http.get<KnownClientDto>(`${BASE}/${encodeURIComponent(id)}`));
  }
}
