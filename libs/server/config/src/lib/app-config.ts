import type { DocumentFile } from './document-file';
import type { OidcConfig, TrustedAuthConfig } from './staff-auth-config';
import type { TemplateRepositoryAuth } from './template-repository-config';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/**
 * The one typed configuration of the server, built once at start-up by `loadConfig()`.
 * Nothing else in the server reads `process.env`.
 */
export class AppConfig {
  /** Listen port. */
  readonly port!: number;
  /** Listen address. */
  readonly host!: string;
  /**
   * `PUBLIC_URL` (no trailing slash), the external URL: proxy URLs shown to admins, origin checks,
   * links in notifications, the SSO redirect URI. `undefined` when unset: each request's own scheme,
   * host and port then stand for it (see `ExternalUrls`).
   */
  readonly publicUrl!: string | undefined;
  /** Origin of `publicUrl`; `undefined` when `PUBLIC_URL` is unset. */
  readonly publicOrigin!: string | undefined;
  /** Whether `PUBLIC_URL` is https (cookies are then `Secure`; unset: each request's scheme decides). */
  readonly secureCookies!: boolean;
  /**
   * Origins accepted on admin writes: the public origin plus `ALLOWED_ORIGINS` (with `PUBLIC_URL` unset,
   * `ALLOWED_ORIGINS` and each request's own origin).
   */
  readonly allowedOrigins!: readonly string[];
  /** PostgreSQL connection string; `undefined` selects the embedded database. */
  readonly databaseUrl!: string | undefined;
  /**
   * `DATABASE_LISTEN_URL`: where the change listener (LISTEN/NOTIFY) connects when `DATABASE_URL` goes
   * through a transaction-mode pooler, which cannot hold a subscription; `undefined`: `DATABASE_URL`.
   */
  readonly databaseListenUrl!: string | undefined;
  /** Directory of the embedded database and of the generated secret key (absolute). */
  readonly dataDir!: string;
  /** 32-byte key that encrypts upstream keys and proxy keys at rest. */
  readonly secretKey!: Buffer;
  /** Where the secret key came from (for the start-up log; never the key itself). */
  readonly secretKeySource!: 'SECRET_KEY' | 'SECRET_KEY_FILE' | 'generated' | 'data-dir';
  /** First administrator, created when no administrator exists. */
  readonly adminUsername!: string | undefined;
  readonly adminPassword!: string | undefined;
  /** Name in the `Via: 1.1 <name>` header. */
  readonly proxyName!: string;
  readonly logLevel!: LogLevel;
  /** Base URLs the OpenAPI descriptions are fetched from; empty when `OPENAPI_SOURCES=none`. */
  readonly openapiSources!: readonly string[];
  /** Admin session lifetime without activity, in seconds. */
  readonly sessionIdleSeconds!: number;
  /** Absolute admin session lifetime, in seconds. */
  readonly sessionMaxSeconds!: number;
  /** Express `trust proxy` setting: which front proxies' `X-Forwarded-For` names the client address. */
  readonly trustProxy!: boolean | number | readonly string[];
  /** Upstream response time-out on the proxy route, in milliseconds. */
  readonly upstreamTimeoutMs!: number;
  /**
   * The template repository used until an admin changes the setting (`TEMPLATE_REPOSITORY`): the public
   * Starr Proxy templates by default; `url` is '' when `TEMPLATE_REPOSITORY=none`.
   */
  readonly templateRepository!: { readonly url: string; readonly ref: string; readonly path: string };
  /**
   * `TEMPLATE_REPOSITORY_TOKEN[_FILE]` (with `TEMPLATE_REPOSITORY_USERNAME`, default `x-access-token`):
   * git HTTP credentials, sent only to the origin of the `TEMPLATE_REPOSITORY` URL, which itself may
   * carry none. Never shown, exported, logged or put in an error.
   */
  readonly templateRepositoryAuth!: TemplateRepositoryAuth | undefined;
  /**
   * `TEMPLATE_ROOT`: the only directory tree a local-directory template repository set through the
   * admin API may be in (absolute); `undefined`: none may be set that way. The directory named in
   * `TEMPLATE_REPOSITORY` is the operator's choice and allowed regardless.
   */
  readonly templateRoot!: string | undefined;
  /** `METRICS_PORT`: Prometheus `/metrics` on a port of its own; `undefined`: metrics are off. */
  readonly metricsPort!: number | undefined;
  /** `METRICS_HOST`: the metrics port's listen address. */
  readonly metricsHost!: string;
  /**
   * `CONFIG_FILE`: the declarative configuration document applied at start-up, read once with the
   * values of the secret references it holds; `undefined`: none.
   */
  readonly configFile!: DocumentFile | undefined;
  /** `USAGE_RETENTION_DAYS`: how long hourly usage counters are kept (1–3650, default 90). */
  readonly usageRetentionDays!: number;
  /**
   * `WARNING_RETENTION_DAYS`: how long an access warning is kept after it was last seen (1–3650,
   * default 90).
   */
  readonly warningRetentionDays!: number;
  /**
   * `USAGE_COUNTING` (default `true`): whether the proxy route counts calls per proxy, hour and route;
   * `false` turns the counting off (to measure what it costs). What was counted stays readable.
   */
  readonly usageCounting!: boolean;
  /**
   * `ACCESS_LOG_WRITER` (default `direct`): how the proxy route's access line is written. `direct`
   * serialises a fixed-shape object with `JSON.stringify` straight into the log's destination, in
   * pino's line format (the speed-up it was measured for: `AccessLog`); `pino`
   * writes it through the pino logger, as every other line is.
   */
  readonly accessLogWriter!: 'direct' | 'pino';
  /**
   * `BENCH_TOGGLE`: the per-call feature each `SIGUSR2` turns off and on again (`AccessLog`), for the
   * bench to measure its cost in one process; `undefined`: none, and no signal handler.
   */
  readonly benchToggle!: 'usage-counting' | 'metrics' | undefined;
  /**
   * `PROXY_CHECKS` (default `direct`): how the proxy route runs `ProxyKeyGuard`, `AllowlistInterceptor`
   * and `ProxyExceptionFilter`. `direct`: `ProxyGateway` calls the same instances in order (the speed-up
   * it was measured for: `ProxyGateway.handle`); `nest`: through Nest's consumers (`ExternalContextCreator`).
   */
  readonly proxyChecks!: 'direct' | 'nest';
  /**
   * `SERVICE_CHECK_INTERVAL_SECONDS`: how often every service's status endpoint is checked (one replica
   * at a time) for the `service.unreachable` / `service.recovered` notifications; 0: never.
   */
  readonly serviceCheckIntervalSeconds!: number;
  /** `PASSWORD_SIGN_IN`: whether administrators may sign in with a username and password. */
  readonly passwordSignIn!: boolean;
  /** `OIDC_*`: single sign-on through an OpenID provider; `undefined`: off. */
  readonly oidc!: OidcConfig | undefined;
  /** `TRUSTED_AUTH_*`: a forward-auth proxy names the user in a header; `undefined`: off. */
  readonly trustedAuth!: TrustedAuthConfig | undefined;
}
