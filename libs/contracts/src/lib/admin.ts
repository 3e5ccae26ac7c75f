/** A page of a list: pass `nextCursor` back as `?cursor=` for the next page (null: no more). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Stored override form: path → lower-case methods, e.g. `{"/api/v3/movie/{id}": ["get", "put"]}`. */
export type AllowlistMap = Record<string, string[]>;

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

export interface AppDto {
  id: string;
  name: string;
  slug: string;
  templateId: string | null;
  active: boolean;
  proxyCount: number;
  createdAt: string;
  updatedAt: string;
}

export interface CreateAppRequest {
  name: string;
  slug: string;
  templateId: string | null;
  active: boolean;
}

export type UpdateAppRequest = Partial<CreateAppRequest>;

export interface ProxyDto {
  id: string;
  appId: string;
  serviceId: string;
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

/** A proxy with what a client needs to use it. */
export interface ProxyConnectionDto extends ProxyDto {
  key: string;
  /** `PUBLIC_URL` + `/proxy/{appSlug}`: the base URL a client puts where it would put the upstream's. */
  proxyUrl: string;
}

export interface CreateProxyRequest {
  serviceId: string;
}

export interface UpdateProxyRequest {
  active: boolean;
}

export interface RotateKeyResponse {
  key: string;
}

export interface ProxyConfigRequest {
  overrides: AllowlistMap;
  active: boolean;
}

export interface AllowlistResponse {
  template: AllowlistMap;
  overrides: AllowlistMap;
  effective: AllowlistMap;
}

export type WarningStatus = 'open' | 'granted' | 'dismissed' | 'learned';

export interface WarningDto {
  id: string;
  proxyId: string;
  appId: string;
  /** Lower case, as in allowlists. */
  method: string;
  /** The canonical path of the latest refused request. */
  path: string;
  /** The route it resolved to, or null when no known route matches. */
  route: string | null;
  count: number;
  firstSeen: string;
  lastSeen: string;
  status: WarningStatus;
}

export interface OpenApiDocumentDto {
  serviceType: string;
  apiVersion: string;
  source: 'upstream' | 'source' | 'upload';
  routes: number;
  updatedAt: string;
}
