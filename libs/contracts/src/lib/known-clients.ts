import type { AllowlistMap } from './admin/common';
import type { AppDto } from './admin/apps';
import type { NamedCall, RouteRiskDto } from './admin/risk';
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
  /**
   * The path as sent, with sample ids (`/api/v3/movie/123`); where the client builds a part at run time
   * that no route canonicalizes (outside the API), a template (`/backup/{type}/{file}`): what is granted.
   */
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
  /** The route's risk (of `route`, else of the path); sensitive calls start unticked when connecting. */
  risk: RouteRiskDto;
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
  /** Whether the catalogue holds set-up instructions written for this client (else the generic ones apply). */
  instructions: boolean;
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
  risk: RouteRiskDto;
}

/**
 * A grant of the effective allowlist that no call of the client's catalogue resolves to; with
 * `?unusedDays=N`, only those the proxy's own usage has not seen for N days either.
 */
export interface FitUnusedGrant {
  method: string;
  /** The path as the allowlist writes it. */
  route: string;
  risk: RouteRiskDto;
  /** The last call the proxy's usage recorded on it (ISO 8601), null when none is kept; set with `?unusedDays=`. */
  lastSeen?: string | null;
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
 * `POST /api/admin/v1/proxies/:id/fit/apply` (editor role). `grantMissing` grants the missing calls
 * that are not sensitive, plus the sensitive ones named in `include.sensitive`; `revoke` revokes exactly
 * the grants listed (through overrides that leave the method out), each of which must be unused by the
 * fit for `unusedDays` (default 30) at the time of the call, else 409 and nothing changes. At least one
 * of `grantMissing` and a non-empty `revoke` (400).
 */
export interface ApplyFitRequest {
  client: string;
  grantMissing: boolean;
  include?: { sensitive: NamedCall[] };
  revoke?: NamedCall[];
  /** 1–365, default 30. */
  unusedDays?: number;
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
 * `GET /api/admin/v1/templates/fit?client=<id>`: every template's fit in one answer (the Templates
 * page), each against `client` or, without it, the client written for that template; templates without
 * either are left out.
 */
export interface TemplatesFitResponse {
  items: TemplateFitResponse[];
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

/**
 * `POST /api/admin/v1/known-clients/:id/connect` (editor role): one app (`knownClientId` = the client),
 * one proxy per service, each allowlist exactly the client's calls to that service type that are not
 * sensitive plus the sensitive ones named in `include.sensitive` (entries without `serviceId` apply to
 * every service), recorded as a `client-fit` revision. With `templateId`: the template plus those calls.
 * `slug` defaults to the client's id, then `-2`, `-3`…; `name` to the client's name. 400 for a service
 * whose type the client does not call, 404 for an unknown client, template or service; nothing is
 * written on any error.
 */
export interface ConnectClientRequest {
  serviceIds: string[];
  templateId?: string | null;
  include?: { sensitive: NamedCall[] };
  name?: string;
  slug?: string;
}

export interface ConnectedProxyDto {
  id: string;
  serviceId: string;
  serviceName: string;
  serviceType: string;
  key: string;
  proxyUrl: string;
  /** The number of grants its allowlist holds. */
  granted: number;
}

/** One value to type into the client's own settings screen. */
export interface InstructionFieldDto {
  /** The field's label as the client's screen shows it ("Hostname or IP Address"). */
  label: string;
  value: string;
  /** The value is a key: shown masked (`••••`) to viewers, copied only by those who may see it. */
  secret: boolean;
}

/** A configuration file's part to paste (Homepage's `services.yaml`, `recyclarr.yml`…). */
export interface InstructionSnippetDto {
  filename: string;
  language: 'yaml' | 'json' | 'ini' | 'toml' | 'text';
  text: string;
}

/**
 * What to type into one client's settings for one proxy, with the real values filled in; written per
 * client in the catalogue's data (a generic fallback otherwise). `GET /api/admin/v1/proxies/:id/instructions?client=`
 * answers it for one proxy (`Cache-Control: no-store`; the key masked for viewers).
 */
export interface ClientInstructionsDto {
  serviceId: string;
  proxyId: string;
  client: string;
  clientName: string;
  /** False for the generic fallback (a client the catalogue holds no instructions for). */
  specific: boolean;
  fields: InstructionFieldDto[];
  snippet?: InstructionSnippetDto;
  /** Sentences: where the screen is, what to leave as it is, what to do when the client cannot take a URL base. */
  notes: string[];
  /** The client's documentation or source the instructions were written from. */
  source: { title: string; url: string };
}

export interface ConnectClientResponse {
  app: AppDto;
  proxies: ConnectedProxyDto[];
  instructions: ClientInstructionsDto[];
}

/** How one recent call ended: forwarded, refused by the allowlist (403), a wrong or missing key (401), or rate-limited (429). */
export type RecentCallOutcome = 'allowed' | 'refused' | 'unauthorized' | 'rate-limited';

export interface RecentCallDto {
  /** ISO 8601. */
  at: string;
  method: string;
  /** The canonical path, without the query; for a 401 the path after the slug. */
  path: string;
  /** The route it resolved to; null when none (and for 401s). */
  route: string | null;
  outcome: RecentCallOutcome;
  status: number;
  risk: RouteRiskDto | null;
}

/**
 * `GET /api/admin/v1/proxies/:id/recent-calls`: arms recording of the proxy's calls for 10 minutes on
 * every replica (each poll extends it) and answers what this replica saw, newest first (at most 100),
 * with the app's 401s by slug.
 */
export interface RecentCallsResponse {
  items: RecentCallDto[];
  /** Replicas known to be running: above 1, the list holds only what this replica saw. */
  replicas: number;
  armedUntil: string;
}
