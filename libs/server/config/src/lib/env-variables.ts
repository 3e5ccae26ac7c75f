import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { LOG_LEVELS } from './app-config';

/** The groups the documentation's table is split into, in that order. */
export const ENV_SECTIONS = {
  server: 'Server',
  storage: 'Database, storage and the secret key',
  staff: 'Administrators and sign-in',
  templates: 'Templates and OpenAPI descriptions',
  operations: 'Configuration file, usage and checks',
} as const;

interface Common {
  readonly name: string;
  /** The documentation's group. */
  readonly section: keyof typeof ENV_SECTIONS;
  /** The default as the documentation states it (Markdown). */
  readonly default: string;
  /** What it does (Markdown, relative links from `docs/`). */
  readonly description: string;
  /** A credential (the documentation says so; prefer its `_FILE` where there is one). */
  readonly secret?: boolean;
  /** Also read from the file `<name>_FILE` names (one of the two at most). */
  readonly file?: boolean;
}

/**
 * How a variable is read. `integer` and `string` values are checked here, with class-validator, before
 * anything else looks at them (an integer's digits are read as a number first); `parsed` ones are
 * read and checked only by the parser named (which also reads their `_FILE`).
 */
type Reading =
  | { readonly type: 'integer'; readonly min: number; readonly max: number }
  | {
      readonly type: 'string';
      /** The only values accepted. */
      readonly oneOf?: readonly string[];
      /** Checks after `IsString` (and `oneOf`), in order: the first that fails is reported. */
      readonly checks?: readonly PropertyDecorator[];
    }
  | { readonly type: 'parsed'; readonly parser: 'parseStaffAuth' | 'parseTemplateRepository' };

export type EnvVariable = Common & Reading;

const POSTGRES_URL = /^postgres(ql)?:\/\/\S+$/;
const PUBLIC_URL = /^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/;

/**
 * Every environment variable the server reads: the one list the start-up validation, the key list
 * and the documentation's table (`docs/configuration.md`, `npm run docs:env`) are made from. A new
 * variable is a new row here (the spec beside this file then asks for its documentation and for the
 * Helm chart's value, or an exemption).
 */
export const ENV_VARIABLES = [
  {
    name: 'PORT',
    section: 'server',
    type: 'integer',
    min: 1,
    max: 65535,
    default: '`8080`',
    description: 'the port the dashboard, the admin API and the proxy route listen on',
  },
  {
    name: 'HOST',
    section: 'server',
    type: 'string',
    default: '`0.0.0.0`',
    description: 'the listen address',
  },
  {
    name: 'PUBLIC_URL',
    section: 'server',
    type: 'string',
    checks: [
      Matches(PUBLIC_URL, {
        message:
          'PUBLIC_URL must be an http(s) URL such as https://arrbiter.example.com or https://home.example/arrbiter, without a query or fragment',
      }),
    ],
    default: "unset: each request's own scheme, host and port",
    description:
      'external URL, optionally with a path ([sub-path](#serving-under-a-sub-path)): proxy URLs shown to admins, origin checks, links in notifications, the SSO redirect URI (required with `OIDC_ISSUER`); `https://` makes the cookies `Secure`. Unset, the server works at whatever address it is opened at (`X-Forwarded-Proto`/`-Host`/`-Prefix` only from `TRUST_PROXY` peers), accepts admin writes from that same origin only, makes cookies `Secure` over https, logs a notice at start-up and the dashboard asks an admin to set it',
  },
  {
    name: 'DATABASE_URL',
    section: 'storage',
    type: 'string',
    checks: [
      Matches(POSTGRES_URL, { message: 'DATABASE_URL must be a postgres:// or postgresql:// connection string' }),
    ],
    default: 'unset → embedded',
    description: 'PostgreSQL connection string (`postgres://user:pass@host:5432/db`)',
  },
  {
    name: 'DATABASE_LISTEN_URL',
    section: 'storage',
    type: 'string',
    checks: [
      Matches(POSTGRES_URL, {
        message: 'DATABASE_LISTEN_URL must be a postgres:// or postgresql:// connection string',
      }),
    ],
    default: '`DATABASE_URL`',
    description:
      'where the change listener (LISTEN/NOTIFY) connects, when `DATABASE_URL` goes through a transaction-mode pooler (PgBouncer), which cannot hold a subscription; only with `DATABASE_URL`',
  },
  {
    name: 'DATA_DIR',
    section: 'storage',
    type: 'string',
    default: '`./data`',
    description: 'embedded database (`pg/`) and generated secret key (`secret.key`)',
  },
  {
    name: 'SECRET_KEY',
    section: 'storage',
    type: 'string',
    secret: true,
    file: true,
    default: 'embedded: generated into `DATA_DIR` (mode 0600); with `DATABASE_URL`: required',
    description:
      '32-byte key (64 hex characters or base64, e.g. `openssl rand -hex 32`) that encrypts upstream and proxy keys at rest',
  },
  {
    name: 'ADMIN_USERNAME',
    section: 'staff',
    type: 'string',
    checks: [
      Matches(/^[A-Za-z0-9._@-]{1,64}$/, {
        message: 'ADMIN_USERNAME must be 1-64 characters of letters, digits, ".", "_", "@" or "-"',
      }),
    ],
    default: 'unset',
    description:
      'with `ADMIN_PASSWORD`: create the first administrator if none exists; with neither set and no admin, a random password is generated and printed once',
  },
  {
    name: 'ADMIN_PASSWORD',
    section: 'staff',
    type: 'string',
    secret: true,
    checks: [MinLength(12), MaxLength(256)],
    default: 'unset',
    description: "the first administrator's password (12–256 characters)",
  },
  {
    name: 'PROXY_NAME',
    section: 'server',
    type: 'string',
    checks: [
      Matches(/^[A-Za-z0-9._-]{1,64}$/, {
        message: 'PROXY_NAME must be 1-64 characters of letters, digits, ".", "_" or "-"',
      }),
    ],
    default: '`arrbiter`',
    description: 'name in the `Via: 1.1 <name>` header',
  },
  {
    name: 'ALLOWED_ORIGINS',
    section: 'server',
    type: 'string',
    default: 'none',
    description:
      "extra origins accepted on admin writes (comma list), besides `PUBLIC_URL`'s origin (or, with it unset, the request's own); a write from any other origin gets a 403 naming `PUBLIC_URL`/`ALLOWED_ORIGINS`",
  },
  {
    name: 'LOG_LEVEL',
    section: 'server',
    type: 'string',
    oneOf: LOG_LEVELS,
    default: '`info`',
    description:
      '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`; logs are JSON lines (pino) on standard output, written in batches (64 KiB or every 250 ms; everything is out at start-up and on exit)',
  },
  {
    name: 'OPENAPI_SOURCES',
    section: 'templates',
    type: 'string',
    default: 'the public Servarr repositories',
    description:
      "where a service type's OpenAPI description is fetched from when the upstream does not serve one (comma list of URLs); `none` disables",
  },
  {
    name: 'TEMPLATE_REPOSITORY',
    section: 'templates',
    type: 'string',
    default:
      'the public Starr Proxy templates (`https://github.com/Notifiarr/starrproxy.git`, folder `root/app/www/public/templates`)',
    description:
      'the template repository used until an admin changes it in the dashboard: an http(s) git URL, an absolute directory, or `none`; never with credentials in it (start-up refuses them: use `TEMPLATE_REPOSITORY_TOKEN`)',
  },
  {
    name: 'TEMPLATE_ROOT',
    section: 'templates',
    type: 'string',
    default: 'unset',
    description:
      "the only directory tree (absolute) a local-directory template repository set through the admin API or dashboard may be in (`..` and symbolic links resolved); unset: only git URLs can be set there. The directory named in `TEMPLATE_REPOSITORY` is the operator's choice and allowed as it is",
  },
  {
    name: 'TRUST_PROXY',
    section: 'server',
    type: 'string',
    checks: [
      Matches(/^(true|false|\d{1,2}|[0-9A-Za-z.:/]+(\s*,\s*[0-9A-Za-z.:/]+)*)$/, {
        message:
          'TRUST_PROXY must be true, false, a hop count, or a comma list of addresses/CIDRs (loopback, uniquelocal…)',
      }),
    ],
    default: '`false`',
    description:
      "which front proxies' `X-Forwarded-For` names the client (Express `trust proxy`: `true`, a hop count, or addresses/CIDRs such as `loopback,uniquelocal`)",
  },
  {
    name: 'SESSION_IDLE_HOURS',
    section: 'staff',
    type: 'integer',
    min: 1,
    max: 24 * 30,
    default: '`12`',
    description: 'an admin session ends after this long without activity',
  },
  {
    name: 'SESSION_MAX_HOURS',
    section: 'staff',
    type: 'integer',
    min: 1,
    max: 24 * 90,
    default: '`168`',
    description: 'an admin session ends after this long in any case (at least `SESSION_IDLE_HOURS`)',
  },
  {
    name: 'UPSTREAM_TIMEOUT_MS',
    section: 'server',
    type: 'integer',
    min: 100,
    max: 600_000,
    default: '`30000`',
    description:
      'how long a proxied call may wait for the upstream before it gets a 504. The wait is for the head, or for the next piece of the body once it streams (the call is then cut and logged as `upstream-timeout`). The clock stops while a slow client holds the response back or is still sending its body (unless the upstream holds that body back)',
  },
  {
    name: 'METRICS_PORT',
    section: 'server',
    type: 'integer',
    min: 1,
    max: 65535,
    default: 'unset (off)',
    description: 'Prometheus metrics at `GET /metrics` on a port of their own (e.g. `9464`; must differ from `PORT`)',
  },
  {
    name: 'METRICS_HOST',
    section: 'server',
    type: 'string',
    default: '`0.0.0.0`',
    description: "the metrics port's listen address",
  },
  {
    name: 'CONFIG_FILE',
    section: 'operations',
    type: 'string',
    default: 'unset',
    description:
      'a declarative configuration document (YAML, or JSON when named `.json`) applied at every start-up, idempotently; its secrets as `${ENV_VAR}` / `${file:/path}` references (see [Declarative configuration](declarative-config.md))',
  },
  {
    name: 'USAGE_RETENTION_DAYS',
    section: 'operations',
    type: 'integer',
    min: 1,
    max: 3650,
    default: '`90`',
    description:
      "how long the hourly usage counters (Usage tab, Home's traffic chart) are kept; older hours are deleted every hour",
  },
  {
    name: 'WARNING_RETENTION_DAYS',
    section: 'operations',
    type: 'integer',
    min: 1,
    max: 3650,
    default: '`90`',
    description:
      'how long an access warning is kept after it was last seen; older warnings are deleted every hour (one replica at a time)',
  },
  {
    name: 'USAGE_COUNTING',
    section: 'operations',
    type: 'string',
    oneOf: ['true', 'false'],
    default: '`true`',
    description:
      '`false` stops counting proxied calls for the usage views (to measure what counting costs); what was counted stays readable',
  },
  {
    name: 'ACCESS_LOG_WRITER',
    section: 'server',
    type: 'string',
    oneOf: ['direct', 'pino'],
    default: '`direct`',
    description:
      "how the proxy route's access line is written: `direct` serialises it with `JSON.stringify` straight into the log (the same line for less CPU per proxied call, see [performance.md](performance.md)); `pino` writes it through pino like every other line",
  },
  {
    name: 'PROXY_CHECKS',
    section: 'server',
    type: 'string',
    oneOf: ['direct', 'nest'],
    default: '`direct`',
    description:
      "how the proxy route runs its guard (`ProxyKeyGuard`), allowlist interceptor (`AllowlistInterceptor`) and filter: `direct` calls the same instances in order from the gateway (the same checks for less CPU per proxied call, see [the decision](decisions/proxy-checks-direct.md)); `nest` runs them through Nest's guard and interceptor consumers. WebSocket upgrades always use Nest's",
  },
  {
    name: 'BENCH_TOGGLE',
    section: 'server',
    type: 'string',
    oneOf: ['usage-counting', 'metrics'],
    default: 'unset (none)',
    description:
      'a benchmark switch: each `SIGUSR2` the process receives turns this per-call feature off, the next turns it on again, so that `npm run bench` measures what it costs within one process (see [performance.md](performance.md)). The feature starts on: `usage-counting` needs usage counting on, `metrics` needs `METRICS_PORT`. Each switch is logged with the state it left (`Bench toggle: metrics off`), which the bench counts against the signals it sent. Unset: `SIGUSR2` is not handled',
  },
  {
    name: 'SERVICE_CHECK_INTERVAL_SECONDS',
    section: 'operations',
    type: 'integer',
    min: 0,
    max: 86_400,
    default: '`300`',
    description:
      "how often every service's status endpoint (`/api/{v}/system/status`, with its key) is checked for the `service.unreachable` / `service.recovered` notifications, by one replica at a time; `0` turns the check off",
  },
  {
    name: 'PASSWORD_SIGN_IN',
    section: 'staff',
    type: 'parsed',
    parser: 'parseStaffAuth',
    default: '`true`',
    description:
      '`false` turns username-and-password sign-in off, leaving single sign-on and forward-auth (one of them must be set); `ADMIN_USERNAME` alone then names the first owner',
  },
  {
    name: 'OIDC_ISSUER',
    section: 'staff',
    type: 'parsed',
    parser: 'parseStaffAuth',
    default: 'unset',
    description:
      'single sign-on through an OpenID provider ([SSO](sso.md#single-sign-on-oidc)); the issuer must be `https://`; needs `PUBLIC_URL` and `OIDC_CLIENT_ID`',
  },
  {
    name: 'OIDC_CLIENT_ID',
    section: 'staff',
    type: 'parsed',
    parser: 'parseStaffAuth',
    default: 'unset',
    description: "the client's id at the OpenID provider",
  },
  {
    name: 'OIDC_CLIENT_SECRET',
    section: 'staff',
    type: 'parsed',
    parser: 'parseStaffAuth',
    secret: true,
    file: true,
    default: 'unset',
    description: "the client's secret; unset: a public client, PKCE alone",
  },
  {
    name: 'OIDC_SCOPES',
    section: 'staff',
    type: 'parsed',
    parser: 'parseStaffAuth',
    default: '`openid profile email groups`',
    description: 'scopes asked for (space- or comma-separated)',
  },
  {
    name: 'OIDC_ROLE_CLAIM',
    section: 'staff',
    type: 'parsed',
    parser: 'parseStaffAuth',
    default: '`groups`',
    description: 'the claim (ID token or userinfo; a string or an array of strings) whose values map to roles',
  },
  {
    name: 'OIDC_ROLE_MAP',
    section: 'staff',
    type: 'parsed',
    parser: 'parseStaffAuth',
    default: 'unset',
    description:
      '`claimValue=role` pairs, comma-separated: `arr-owners=owner,arr-staff=editor,family=viewer`; the highest mapped role wins, and existing accounts get theirs refreshed at each sign-in',
  },
  {
    name: 'OIDC_DEFAULT_ROLE',
    section: 'staff',
    type: 'parsed',
    parser: 'parseStaffAuth',
    default: 'unset',
    description: '`viewer` or `editor` for a user with no mapped value; unset: such a user is refused',
  },
  {
    name: 'OIDC_AUTO_CREATE',
    section: 'staff',
    type: 'parsed',
    parser: 'parseStaffAuth',
    default: '`false`',
    description: 'create an unknown user at their first sign-in, with their mapped role',
  },
  {
    name: 'TRUSTED_AUTH_HEADER',
    section: 'staff',
    type: 'parsed',
    parser: 'parseStaffAuth',
    default: 'unset',
    description:
      'a header such as `Remote-User` in which a forward-auth proxy names the signed-in user ([forward-auth](sso.md#forward-auth-authelia-authentik))',
  },
  {
    name: 'TRUSTED_AUTH_FROM',
    section: 'staff',
    type: 'parsed',
    parser: 'parseStaffAuth',
    default: 'unset',
    description:
      "required with the header: the proxy's addresses or CIDRs (or `loopback`); the header counts only when the TCP connection itself comes from one of them (`TRUST_PROXY` never makes it count); all addresses (`0.0.0.0/0`, `::/0`) are refused",
  },
  {
    name: 'TRUSTED_AUTH_AUTO_CREATE',
    section: 'staff',
    type: 'parsed',
    parser: 'parseStaffAuth',
    default: '`false`',
    description: 'create an unknown forward-auth user as a viewer',
  },
  {
    name: 'TEMPLATE_REPOSITORY_TOKEN',
    section: 'templates',
    type: 'parsed',
    parser: 'parseTemplateRepository',
    secret: true,
    file: true,
    default: 'unset',
    description:
      "a git HTTP token for `TEMPLATE_REPOSITORY`; sent only to that URL's origin, and only when the server asks for it; never shown, exported, logged or put in an error",
  },
  {
    name: 'TEMPLATE_REPOSITORY_USERNAME',
    section: 'templates',
    type: 'parsed',
    parser: 'parseTemplateRepository',
    default: '`x-access-token`',
    description: 'the username sent with that token (e.g. `oauth2` for GitLab, `x-token-auth` for Bitbucket)',
  },
] as const satisfies readonly EnvVariable[];

type Row = (typeof ENV_VARIABLES)[number];
type FileName<V> = V extends { readonly name: infer N extends string; readonly file: true } ? `${N}_FILE` : never;

/** Every variable name the server reads, `_FILE` companions included. */
export type EnvName = Row['name'] | FileName<Row>;

/** The names a parser reads, in the table's order (each `_FILE` after its variable). */
export function envNamesReadBy(parser: Extract<EnvVariable, { type: 'parsed' }>['parser']): EnvName[] {
  return ENV_VARIABLES.filter((v) => v.type === 'parsed' && v.parser === parser).flatMap(namesOf);
}

/** A variable's name and, with `file`, its `_FILE` companion. */
export function namesOf(variable: EnvVariable): EnvName[] {
  return (variable.file ? [variable.name, `${variable.name}_FILE`] : [variable.name]) as EnvName[];
}

/** Every variable name the server reads (the key list), `_FILE` companions included. */
export const ENV_NAMES: readonly EnvName[] = ENV_VARIABLES.flatMap(namesOf);

type Checked = Exclude<Row, { type: 'parsed' }>;
type ValueOf<V> = V extends { type: 'integer' } ? number : V extends { oneOf: readonly (infer T)[] } ? T : string;

/** The variables checked here, as class-validator sees them (an integer's digits already read as a number). */
export type CheckedEnvironment = { [V in Checked as V['name']]?: ValueOf<V> } & {
  [V in Checked as FileName<V>]?: string;
};

/**
 * The class-validator checks of the `integer` and `string` variables, in the order they run (the
 * type first; with `stopAtFirstError`, only the first that fails is reported). A `_FILE` companion is
 * a non-empty path.
 */
export function checksOf(variable: EnvVariable): Map<string, PropertyDecorator[]> {
  const checks = new Map<string, PropertyDecorator[]>();
  if (variable.type === 'parsed') return checks;
  if (variable.type === 'integer') {
    checks.set(variable.name, [IsOptional(), IsInt(), Min(variable.min), Max(variable.max)]);
  } else {
    checks.set(variable.name, [
      IsOptional(),
      ...(variable.oneOf ? [IsIn(variable.oneOf)] : [IsString()]),
      ...(variable.checks ?? []),
    ]);
  }
  if (variable.file) checks.set(`${variable.name}_FILE`, [IsOptional(), IsString(), MinLength(1)]);
  return checks;
}
