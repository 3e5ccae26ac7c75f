import type { AllowlistMap } from './common';
import type { RouteRiskDto } from './risk';

/**
 * A proxy's allowlist: what it lets through (`/api/admin/v1/proxies/:id/allowlist`), per endpoint of
 * its service's catalog (`…/endpoints`), and learning mode (`…/learning`).
 */

export interface AllowlistResponse {
  template: AllowlistMap;
  overrides: AllowlistMap;
  effective: AllowlistMap;
}

/** `PUT /api/admin/v1/proxies/:id/config`: the allowlist as saved, and the revision the save wrote. */
export interface ProxyConfigSaveResponse extends AllowlistResponse {
  /** The `manual` revision the save wrote (for Undo); null when it wrote none. */
  revisionId: string | null;
}

/** One method of one path in a proxy's permission catalog. */
export interface EndpointMethodDto {
  method: string;
  /** The app's template grants it. */
  template: boolean;
  /** The proxy's override for the path grants it (true) or leaves it out (false); null: no override, inherited. */
  override: boolean | null;
  /** The result: what the proxy allows. */
  effective: boolean;
  /** The operation's summary from the OpenAPI description. */
  summary?: string;
  /** What granting this method on the path risks (the permissions lib's `routeRisk`). */
  risk: RouteRiskDto;
}

export interface EndpointDto {
  path: string;
  tags: string[];
  /** False for allowlist paths that the service's catalog does not know. */
  inCatalog: boolean;
  /** Known to expose secrets or to control the server (`/api/v3/config/host`, `/api/v3/system/backup`, …). */
  sensitive: boolean;
  /** The override's method list for the path; null when the path inherits the template. */
  override: string[] | null;
  methods: EndpointMethodDto[];
}

/** `GET /api/admin/v1/proxies/:id/endpoints?search=&tag=`. */
export interface EndpointsResponse {
  serviceType: string;
  templateId: string | null;
  /** Every tag of the catalog (for a filter), sorted. */
  tags: string[];
  items: EndpointDto[];
}

export interface StartLearningRequest {
  /** ISO 8601 time, in the future and at most 7 days ahead. */
  until: string;
}
