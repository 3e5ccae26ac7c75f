/**
 * Services (`/api/admin/v1/services`): the upstream Servarr instances; and the OpenAPI description
 * each service type's routes are read from (`/api/admin/v1/openapi`).
 */

export interface ServiceDto {
  id: string;
  /** The upstream's instance name, discovered. */
  name: string;
  /** The upstream's app name, lower case (`sonarr`), discovered. */
  type: string;
  baseUrl: string;
  /** API versions served, current first (`["v5", "v3"]`). */
  apiVersions: string[];
  upstreamVersion: string;
  createdAt: string;
  updatedAt: string;
}

export interface CreateServiceRequest {
  baseUrl: string;
  apiKey: string;
}

export type UpdateServiceRequest = Partial<CreateServiceRequest>;

/** `GET /api/admin/v1/services/:id/ping`: whether the upstream answers its `/ping` now. */
export interface ServiceReachabilityDto {
  reachable: boolean;
  latencyMs: number | null;
  checkedAt: string;
  /** Why it is not reachable (connection refused, time-out, HTTP status). */
  error: string | null;
}

export interface OpenApiDocumentDto {
  serviceType: string;
  apiVersion: string;
  source: 'upstream' | 'source' | 'upload';
  routes: number;
  updatedAt: string;
}
