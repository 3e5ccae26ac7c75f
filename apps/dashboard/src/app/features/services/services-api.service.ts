import { HttpClient } from '@angular/common/http';
import { inject, Injectable } from '@angular/core';
import type {
  CreateServiceRequest,
  ServiceDto,
  ServiceReachabilityDto,
  UpdateServiceRequest,
} from '@arrbiter/contracts';
import { firstValueFrom } from 'rxjs';

const BASE = '/api/admin/v1/services';

/** The upstream services (Sonarr, Radarr…) Arrbiter guards. */
@Injectable({ providedIn: 'root' })
export class ServicesApiService {
  private readonly http = inject(HttpClient);

  list(): Promise<ServiceDto[]> {
    return firstValueFrom(this.http.get<ServiceDto[]>(BASE));
  }

  get(id: string): Promise<ServiceDto> {
    return firstValueFrom(this.http.get<ServiceDto>(`${BASE}/${id}`));
  }

  /** The server discovers the upstream's name and type; 422/502/400 when it cannot. */
  create(request: CreateServiceRequest): Promise<ServiceDto> {
    return firstValueFrom(this.http.post<ServiceDto>(BASE, request));
  }

  update(id: string, request: UpdateServiceRequest): Promise<ServiceDto> {
    return firstValueFrom(this.http.patch<ServiceDto>(`${BASE}/${id}`, request));
  }

  /** 409 naming the apps that use it. */
  remove(id: string): Promise<void> {
    return firstValueFrom(this.http.delete<void>(`${BASE}/${id}`));
  }

  ping(id: string): Promise<ServiceReachabilityDto> {
    return firstValueFrom(this.http.get<ServiceReachabilityDto>(`${BASE}/${id}/ping`));
  }
}
