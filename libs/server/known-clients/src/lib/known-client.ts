import type { HttpMethod } from '@arrbiter/shared/allowlist-rules';

/**
 * One integration's Servarr API calls, read from its own source code: the shape of a file in
 * `libs/server/known-clients/data/<id>.json`, described by `known-client.schema.json` (keep both in step).
 */
export interface KnownClient {
  /** Lower-case id, the file's name; equal to the name of its community template where it has one. */
  id: string;
  name: string;
  projectUrl: string;
  /** The source the calls were read from. */
  source: KnownClientSource;
  /** The community template names (`<serviceType>/<name>.json`) written for this client. */
  templateNames: string[];
  /** Per service type (`radarr`, `sonarr`…), the calls the client makes. */
  services: Partial<Record<KnownServiceType, KnownClientCall[]>>;
  /** What to type into the client's own settings to use a proxy (else the generic instructions apply). */
  setup?: KnownClientSetup;
}

/**
 * Set-up instructions with placeholders (`{{url}}`, `{{host}}`, `{{apiKey}}`…, listed in
 * `instructions.ts`) that `renderInstructions` fills in per proxy.
 */
export interface KnownClientSetupPart {
  /** The client's documentation or source the instructions were written from. */
  source?: { title: string; url: string };
  /** The settings screen's fields, in its order; a value holding `{{apiKey}}` is a secret. */
  fields?: { label: string; value: string }[];
  /** A configuration file's part to paste: placeholders are written as quoted strings of its language. */
  snippet?: { filename: string; language: 'yaml' | 'json' | 'ini' | 'toml' | 'text'; text: string };
  notes?: string[];
}

export interface KnownClientSetup extends KnownClientSetupPart {
  source: { title: string; url: string };
  fields: { label: string; value: string }[];
  notes: string[];
  /** Per service type, the parts that differ: each one given replaces the default's. */
  byServiceType?: Partial<Record<KnownServiceType, KnownClientSetupPart>>;
}

export interface KnownClientSource {
  /** `https://github.com/<owner>/<name>` */
  repository: string;
  /** The release tag (or, for a project without releases, the branch) that was read. */
  ref: string;
  /** The commit `ref` pointed at: 40 hexadecimal digits. */
  commit: string;
}

export const KNOWN_SERVICE_TYPES = ['sonarr', 'radarr', 'lidarr', 'readarr', 'prowlarr', 'whisparr'] as const;
export type KnownServiceType = (typeof KNOWN_SERVICE_TYPES)[number];

/** One request as the client sends it. */
export interface KnownClientCall {
  method: HttpMethod;
  /**
   * The path as sent, with sample ids the proxy canonicalizes (`/api/v3/movie/123`); a part the client
   * builds at run time that no catalog route turns into a parameter (a file name, a date, a hash) is a
   * `{param}` (`/backup/scheduled/{file}`), with a sample in `pathSamples`. The allowlist grants the
   * template; `concretePath` (`call-paths.ts`) gives the request to send.
   */
  path: string;
  /** Per `{param}` of `path`, exactly: a sample value, one path segment (`{"file": "sonarr_backup_….zip"}`). */
  pathSamples?: Record<string, string>;
  /** The query the client sends (sample values, no credentials), without `?`. */
  query?: string;
  /** Where the call is made. */
  source: KnownClientCallSource;
  note?: string;
  /** The path is not an API route of the service's OpenAPI description (SignalR, a legacy probe…); `note` says why. */
  outsideApi?: true;
}

export interface KnownClientCallSource {
  /** Path of the file in the repository that was read. */
  file: string;
  /** The function or method that sends the call (`Class.method` where there is a class). */
  function: string;
  /** When the call is made by a library the client uses: that library's repository, release and commit. */
  repository?: string;
  ref?: string;
  commit?: string;
}
