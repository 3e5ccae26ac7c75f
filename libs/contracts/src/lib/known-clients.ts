import type { AllowlistMap, RevisionDto } from './admin';

/** Where a known client's call is made: a file and function of the client's source (or of a library it uses). */
export interface KnownClientCallSourceDto {
  file: string;
  function: string;
  /** Set when the call is made by a library the client uses: that library's repository, release and commit. */
  repository?: string;
  ref?: string;
  commit?: string;
}

/** The release of a client's source its calls were read from. */
export interface KnownClientSourceDto {
  repository: string;
  ref: string;
  commit: string;
}

/** One call as the client sends it. */
export interface KnownClientCallDto {
  /** Lower case, as in allowlists. */
  method: string;
  /** The path as sent, with sample ids (`/api/v3/movie/123`). */
  path: string;
  /** The query the client sends, without `?`, when it has one. */
  query?: string;
  /** The catalog route the proxy resolves it to (`/api/v3/movie/{id}`); null for calls outside the API. */
  route: string | null;
  source: KnownClientCallSourceDto;
  note?: string;
  /** Not an API route of the service's OpenAPI description (SignalR, `/ping`…). */
  outsideApi?: boolean;
}

/** `GET /api/admin/v1/known-clients`: one item. */
export interface KnownClientSummaryDto {
  /** Lower case; equal to the name of its community template where it has one. */
  id: string;
  name: string;
  projectUrl: string;
  source: KnownClientSourceDto;
  /** Names of the community templates written for this client. */
  templateNames: string[];
  /** Number of distinct calls per service type (`{radarr: 17, sonarr: 19}`). */
  calls: Record<string, number>;
}

/** `GET /api/admin/v1/known-clients/:id`. */
export interface KnownClientDto extends KnownClientSummaryDto {
  /** Per service type, the calls the client makes. */
  services: Record<string, KnownClientCallDto[]>;
}

/** A call the effective allowlist refuses. */
export interface FitMissingCall {
  method: string;
  /** The route it resolves to: what granting it adds to the allowlist. */
  route: string;
  /** The request as the client sends it: path, and `?query` when it has one. */
  sample: string;
  source: KnownClientCallSourceDto;
}

/** A grant of the effective allowlist that the client never uses. */
export interface FitUnusedGrant {
  method: string;
  route: string;
}

/** How well one allowlist fits one client on one service type. */
export interface FitResult {
  /** The known client's id. */
  client: string;
  clientName: string;
  serviceType: string;
  /** The client's distinct calls to this service type. */
  calls: number;
  /** Calls the allowlist lets through. */
  covered: number;
  missing: FitMissingCall[];
  unused: FitUnusedGrant[];
}

/**
 * `GET /api/admin/v1/proxies/:id/fit?client=<id>`: `client` defaults to the known client whose id (or
 * one of whose `templateNames`) matches the app's template name; 404 when there is none and none is named.
 */
export type ProxyFitResponse = FitResult;

/** `POST /api/admin/v1/proxies/:id/fit/apply`. At least one of the two must be true. */
export interface ApplyFitRequest {
  client: string;
  grantMissing: boolean;
  revokeUnused: boolean;
}

/** The revision is null when there was nothing to change. */
export interface ApplyFitResponse {
  revision: RevisionDto | null;
  fit: FitResult;
}

/** `GET /api/admin/v1/templates/:id/fit?client=<id>`: the template's fit per service type it has a block for. */
export interface TemplateFitResponse {
  client: string;
  clientName: string;
  templateId: string;
  /** One per service type that both the template and the client have. */
  services: FitResult[];
}

/**
 * `GET /api/admin/v1/templates/:id/suggested?client=<id>`: the template with the client's missing calls
 * added and unused grants removed, one override-form block per service type;
 * `Content-Disposition: attachment; filename="<name>.json"`. With `&serviceType=radarr` the answer is that
 * block alone (an `AllowlistMap`), byte for byte the file `radarr/<name>.json` of the community repository
 * would hold (keys sorted, methods sorted, 4-space indent, as the repository writes them).
 */
export interface SuggestedTemplate {
  name: string;
  blocks: Record<string, AllowlistMap>;
}

/** On a warning: a known client that makes the refused call. */
export interface KnownCaller {
  client: string;
  clientName: string;
  source: KnownClientCallSourceDto;
}
