import type { AllowlistMap } from './admin/common';
import type { RevisionDto } from './admin/revisions';

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
  /**
   * The catalog route the server's OpenAPI descriptions of that service type resolve it to
   * (`/api/v3/movie/{id}`); null for calls outside the API, and for every call of a service type the
   * server holds no description of yet.
   */
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
  /**
   * The route the proxy resolves it to, or its exact path when it resolves to none (a call outside the
   * API, `/signalr/messages`): what granting it adds to the allowlist, as a warning's grant does.
   */
  route: string;
  /** The request as the client sends it: path, and `?query` when it has one. */
  sample: string;
  source: KnownClientCallSourceDto;
}

/** A grant of the effective allowlist that the client never uses. */
export interface FitUnusedGrant {
  method: string;
  /** The path as the allowlist writes it. */
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
  /** One per method and route (so possibly fewer than `calls - covered`), with the first such call as sample. */
  missing: FitMissingCall[];
  unused: FitUnusedGrant[];
}

/**
 * `GET /api/admin/v1/proxies/:id/fit?client=<id>`: `client` defaults to the known client whose id (or
 * one of whose `templateNames`) matches the app's template name, in any case; 404 when there is none and
 * none is named, or for an unknown client; 422 when the client makes no calls to the proxy's service type.
 */
export type ProxyFitResponse = FitResult;

/**
 * `POST /api/admin/v1/proxies/:id/fit/apply`. At least one of the two must be true (400). Unused grants
 * are revoked through overrides that leave the method out (`[]` when none is left). Needs the editor role.
 */
export interface ApplyFitRequest {
  client: string;
  grantMissing: boolean;
  revokeUnused: boolean;
}

/** The revision (kind `client-fit`) is null when there was nothing to change; `fit` is the fit after it. */
export interface ApplyFitResponse {
  revision: RevisionDto | null;
  fit: FitResult;
}

/**
 * `GET /api/admin/v1/templates/:id/fit?client=<id>`: the template's fit per service type it has a block
 * for, against every OpenAPI description the server holds of that type. `client` defaults as for a proxy.
 */
export interface TemplateFitResponse {
  client: string;
  clientName: string;
  templateId: string;
  /** One per service type that both the template and the client have, by service type. */
  services: FitResult[];
}

/**
 * `GET /api/admin/v1/templates/:id/suggested?client=<id>`: the template with the client's missing calls
 * added and unused grants removed, one override-form block per service type (blocks of types the client
 * does not call are kept as they are); `Content-Disposition: attachment; filename="<name>.json"`, JSON with
 * a 4-space indent. With `&serviceType=radarr` the answer is that block alone (an `AllowlistMap`), byte for
 * byte the file `radarr/<name>.json` of the community repository would hold (paths and methods sorted by
 * code point, 4-space indent, every method on its own line, a final newline); 404 when the template has no
 * such block, 422 when the client makes no calls to that type.
 */
export interface SuggestedTemplate {
  name: string;
  blocks: Record<string, AllowlistMap>;
}

/** On a warning: a known client that makes the refused call (same service type, method and route, or exact path). */
export interface KnownCaller {
  client: string;
  clientName: string;
  source: KnownClientCallSourceDto;
}
