import { HttpClient, HttpParams } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import type { ChangeDto, ChangeObjectType, Page } from '@arrbiter/contracts';
import { firstValueFrom } from 'rxjs';

export interface ChangeFilter {
  objectType?: ChangeObjectType | null;
  actor?: string | null;
  /** `false` leaves out sign-ins and sign-outs. */
  signIns?: boolean;
  limit?: number;
  cursor?: string | null;
}

/** The audit trail. */
@Injectable({ providedIn: 'root' })
export class ChangesApiService {
  private readonly http = inject(HttpClient);

  list(filter: ChangeFilter = {}): Promise<Page<ChangeDto>> {
    let params = new HttpParams();
    for (const [key, value] of Object.entries(filter)) {
      if (value !== undefined && value !== null && value !== '') params = params.set(key, String(value));
    }
    return firstValueFrom(this.http.get<Page<ChangeDto>>('/api/admin/v1/changes', { params }));
  }
}
