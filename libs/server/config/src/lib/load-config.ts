import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { plainToInstance } from 'class-transformer';
import { validateSync } from 'class-validator';
import { TrustedProxies } from './trusted-proxies';
import { parseStaffAuth } from './staff-auth-config';
import { parseTemplateRepository } from './template-repository-config';
import { AppConfig } from './app-config';
import { CheckedEnvironment, checksOf, ENV_VARIABLES } from './env-variables';
import { dataDirNotWritable } from './data-dir-access';
import { ConfigError } from './config-error';
import { normalPrefix } from './external-urls';
import { DocumentFile, readDocumentFile } from './document-file';

/** Where OpenAPI descriptions come from when an upstream does not serve its own. */
/** The public Starr Proxy community templates (`<serviceType>/<template>.json` under `path`). */
export const DEFAULT_TEMPLATE_REPOSITORY = {
  url: 'https://github.com/Notifiarr/starrproxy.git',
  ref: 'main',
  path: 'root/app/www/public/templates',
};

export const DEFAULT_OPENAPI_SOURCES = [
  'https://raw.githubusercontent.com/{Name}/{Name}/develop/src/{Name}.Api.{Version}/openapi.json',
];

const SECRET_FILE_NAME = 'secret.key';

/**
 * The checked variables as class-validator sees them (names are the variable names, so messages name
 * them): its properties and their checks come from `ENV_VARIABLES`, in the table's order.
 */
class EnvironmentVariables {}

const CHECKED: string[] = [];
for (const variable of ENV_VARIABLES) {
  for (const [name, checks] of checksOf(variable)) {
    CHECKED.push(name);
    for (const check of checks) check(EnvironmentVariables.prototype, name);
  }
}
const INTEGERS = new Set<string>(ENV_VARIABLES.filter((v) => v.type === 'integer').map((v) => v.name));

/** Reads a variable; an empty string counts as unset. */
function pick(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function toNumber(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  return /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
}

/** The origin of an http(s) URL (`https://host:port`), or undefined for anything else. */
export function httpOrigin(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

function parseTrustProxy(value: string | undefined): boolean | number | string[] {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) return Number(value);
  return value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Decodes a 32-byte key written as 64 hex characters or as base64. */
function decodeKey(text: string): Buffer | undefined {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const key = Buffer.from(trimmed, 'base64');
    if (key.length === 32) return key;
  }
  return undefined;
}

const KEY_FORMAT = 'must be a 32-byte key written as 64 hex characters or as base64 (e.g. `openssl rand -hex 32`)';

interface SecretResolution {
  key?: Buffer;
  source?: AppConfig['secretKeySource'];
  problem?: string;
}

function resolveSecretKey(env: CheckedEnvironment, dataDir: string, embedded: boolean): SecretResolution {
  if (env.SECRET_KEY !== undefined && env.SECRET_KEY_FILE !== undefined) {
    return { problem: 'SECRET_KEY and SECRET_KEY_FILE are both set: set only one' };
  }
  if (env.SECRET_KEY !== undefined) {
    const key = decodeKey(env.SECRET_KEY);
    return key ? { key, source: 'SECRET_KEY' } : { problem: `SECRET_KEY ${KEY_FORMAT}` };
  }
  if (env.SECRET_KEY_FILE !== undefined) {
    let text: string;
    try {
      text = readFileSync(env.SECRET_KEY_FILE, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      return { problem: `SECRET_KEY_FILE cannot be read (${code}): ${env.SECRET_KEY_FILE}` };
    }
    const key = decodeKey(text);
    return key ? { key, source: 'SECRET_KEY_FILE' } : { problem: `SECRET_KEY_FILE: the file's content ${KEY_FORMAT}` };
  }
  if (!embedded) {
    return {
      problem:
        'SECRET_KEY (or SECRET_KEY_FILE) is required when DATABASE_URL is set, so that every replica decrypts the same keys',
    };
  }
  const file = join(dataDir, SECRET_FILE_NAME);
  try {
    if (existsSync(file)) {
      const key = decodeKey(readFileSync(file, 'utf8'));
      return key ? { key, source: 'data-dir' } : { problem: `${file} ${KEY_FORMAT}; restore it or set SECRET_KEY` };
    }
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    const key = randomBytes(32);
    writeFileSync(file, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    return { key, source: 'generated' };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'error';
    return { problem: dataDirNotWritable(code, `cannot keep the generated secret key in ${file}`, dataDir) };
  }
}

const SECRETS = new Set<string>(
  ENV_VARIABLES.filter((variable) => 'secret' in variable && variable.secret).map((variable) => variable.name),
);

/**
 * A refused value as a start-up message may repeat it: never a secret's (its length only), and a URL's
 * password masked (`postgres://arr:***@db`), since logs are collected and shared.
 */
function shown(name: string, value: string | undefined): string {
  if (value !== undefined && SECRETS.has(name)) return `${value.length} characters`;
  return JSON.stringify(value?.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/:@]*:)[^/@]*@/i, '$1***@'));
}

/**
 * Validates the environment once and returns the typed configuration.
 * Throws a `ConfigError` that names every variable that is wrong and why.
 */
export function loadConfig(environment: NodeJS.ProcessEnv, cwd = process.cwd()): AppConfig {
  const raw: Record<string, string | number | undefined> = {};
  for (const name of CHECKED) {
    const value = pick(environment, name);
    raw[name] = INTEGERS.has(name) ? toNumber(value) : value;
  }
  const checked = plainToInstance(EnvironmentVariables, raw);
  const env = checked as CheckedEnvironment;
  const problems: string[] = validateSync(checked, { forbidUnknownValues: false, stopAtFirstError: true }).flatMap(
    (error) => {
      const got = shown(error.property, environment[error.property]);
      return Object.values(error.constraints ?? {}).map((message) => `${message} (got ${got})`);
    },
  );

  // `system` names what the server does by itself (CONFIG_FILE, schedules, the CLI): no one's account.
  if (env.ADMIN_USERNAME?.toLowerCase() === 'system') {
    problems.push('ADMIN_USERNAME cannot be "system": it is reserved for what the server does by itself');
  }
  const staffAuth = parseStaffAuth((name) => pick(environment, name), problems);
  if (env.PUBLIC_URL !== undefined && /^https?:\/\/[^/?#\s]+(\/[^?#\s]*)?$/.test(env.PUBLIC_URL)) {
    // As written: `new URL` would resolve `..` away.
    const path = /^https?:\/\/[^/]+(\/.*)?$/.exec(env.PUBLIC_URL)?.[1] ?? '';
    if (normalPrefix(path) === undefined || /(^|\/)\.\.?(\/|$)/.test(path)) {
      problems.push(
        `PUBLIC_URL's path must be plain segments such as /arrbiter (got ${JSON.stringify(env.PUBLIC_URL)})`,
      );
    } else if (/^\/(?:api|proxy|health)(?:\/|$)/.test(path)) {
      // The server answers with and without the prefix: one of its own roots would be ambiguous.
      problems.push(
        `PUBLIC_URL's path cannot begin with /api, /proxy or /health, the server's own paths: choose another, such as /arrbiter (got ${JSON.stringify(env.PUBLIC_URL)})`,
      );
    }
  }
  if (staffAuth.oidc !== undefined && env.PUBLIC_URL === undefined) {
    problems.push(
      'OIDC_ISSUER is set without PUBLIC_URL: single sign-on needs a fixed redirect URI; set PUBLIC_URL to the ' +
        'address the dashboard is opened at (e.g. https://arrbiter.example.com)',
    );
  }
  if (!staffAuth.passwordSignIn) {
    // The first owner then signs in through SSO or forward-auth under that name.
    if (env.ADMIN_PASSWORD !== undefined) problems.push('ADMIN_PASSWORD is set but PASSWORD_SIGN_IN=false');
  } else if ((env.ADMIN_USERNAME === undefined) !== (env.ADMIN_PASSWORD === undefined)) {
    problems.push('ADMIN_USERNAME and ADMIN_PASSWORD must be set together (or neither)');
  }

  const allowedOrigins: string[] = [];
  for (const item of (env.ALLOWED_ORIGINS ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const origin = httpOrigin(item);
    if (origin === undefined) problems.push(`ALLOWED_ORIGINS: ${JSON.stringify(item)} is not an http(s) origin`);
    else allowedOrigins.push(origin);
  }

  const { templateRepository, templateRepositoryAuth } = parseTemplateRepository(
    (name) => pick(environment, name),
    DEFAULT_TEMPLATE_REPOSITORY,
    problems,
  );

  const templateRoot = env.TEMPLATE_ROOT?.trim() || undefined;
  if (templateRoot !== undefined && !isAbsolute(templateRoot)) {
    problems.push(`TEMPLATE_ROOT: ${JSON.stringify(templateRoot)} is not an absolute directory`);
  }

  if (env.DATABASE_LISTEN_URL !== undefined && env.DATABASE_URL === undefined) {
    problems.push('DATABASE_LISTEN_URL is set without DATABASE_URL: the embedded database serves one process only');
  }
  if (env.METRICS_PORT !== undefined && env.METRICS_PORT === (env.PORT ?? 8080)) {
    problems.push(
      `METRICS_PORT must differ from PORT (${env.METRICS_PORT}): metrics are served on a port of their own`,
    );
  }

  if (env.BENCH_TOGGLE === 'metrics' && env.METRICS_PORT === undefined) {
    problems.push('BENCH_TOGGLE=metrics needs METRICS_PORT: the metrics it turns off and on must be on');
  }
  if (env.BENCH_TOGGLE === 'usage-counting' && env.USAGE_COUNTING === 'false') {
    problems.push('BENCH_TOGGLE=usage-counting needs USAGE_COUNTING on: the counting it turns off and on must be on');
  }

  // Read once, with the environment variables and files its references name (never logged).
  let configFile: DocumentFile | undefined;
  if (env.CONFIG_FILE !== undefined) {
    try {
      configFile = readDocumentFile(env.CONFIG_FILE, environment, cwd);
    } catch (error) {
      problems.push(`CONFIG_FILE ${(error as Error).message}`);
    }
  }

  const trustProxy = parseTrustProxy(env.TRUST_PROXY);
  try {
    new TrustedProxies(trustProxy);
  } catch (error) {
    problems.push(`TRUST_PROXY: ${error instanceof Error ? error.message : String(error)}`);
  }

  let openapiSources: string[] = DEFAULT_OPENAPI_SOURCES;
  if (env.OPENAPI_SOURCES !== undefined) {
    const items = env.OPENAPI_SOURCES.split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    if (items.length === 1 && items[0].toLowerCase() === 'none') {
      openapiSources = [];
    } else {
      openapiSources = items;
      for (const item of items) {
        if (httpOrigin(item) === undefined) {
          problems.push(`OPENAPI_SOURCES: ${JSON.stringify(item)} is not an http(s) URL (or use "none")`);
        }
      }
    }
  }

  const dataDir = isAbsolute(env.DATA_DIR ?? '') ? (env.DATA_DIR as string) : resolve(cwd, env.DATA_DIR ?? 'data');
  const embedded = env.DATABASE_URL === undefined;
  // The secret key may be generated on disk: only do that once everything else is valid.
  const secret: SecretResolution = problems.length === 0 ? resolveSecretKey(env, dataDir, embedded) : {};
  if (secret.problem) problems.push(secret.problem);

  if (problems.length > 0 || !secret.key || !secret.source) throw new ConfigError(problems);

  const port = env.PORT ?? 8080;
  const publicUrl = env.PUBLIC_URL?.replace(/\/+$/, '');
  const publicOrigin = publicUrl === undefined ? undefined : new URL(publicUrl).origin;
  const sessionIdleSeconds = (env.SESSION_IDLE_HOURS ?? 12) * 3600;
  const sessionMaxSeconds = Math.max((env.SESSION_MAX_HOURS ?? 24 * 7) * 3600, sessionIdleSeconds);

  return Object.assign(new AppConfig(), {
    port,
    host: env.HOST ?? '0.0.0.0',
    publicUrl,
    publicOrigin,
    secureCookies: publicOrigin?.startsWith('https:') ?? false,
    allowedOrigins: [...new Set(publicOrigin === undefined ? allowedOrigins : [publicOrigin, ...allowedOrigins])],
    databaseUrl: env.DATABASE_URL,
    databaseListenUrl: env.DATABASE_LISTEN_URL,
    dataDir,
    secretKey: secret.key,
    secretKeySource: secret.source,
    adminUsername: env.ADMIN_USERNAME,
    adminPassword: env.ADMIN_PASSWORD,
    proxyName: env.PROXY_NAME ?? 'arrbiter',
    logLevel: env.LOG_LEVEL ?? 'info',
    openapiSources,
    sessionIdleSeconds,
    sessionMaxSeconds,
    upstreamTimeoutMs: env.UPSTREAM_TIMEOUT_MS ?? 30_000,
    trustProxy,
    templateRepository,
    templateRepositoryAuth,
    templateRoot: templateRoot === undefined ? undefined : resolve(templateRoot),
    metricsPort: env.METRICS_PORT,
    metricsHost: env.METRICS_HOST ?? '0.0.0.0',
    configFile,
    usageRetentionDays: env.USAGE_RETENTION_DAYS ?? 90,
    warningRetentionDays: env.WARNING_RETENTION_DAYS ?? 90,
    usageCounting: env.USAGE_COUNTING !== 'false',
    accessLogWriter: env.ACCESS_LOG_WRITER ?? 'direct',
    benchToggle: env.BENCH_TOGGLE,
    proxyChecks: env.PROXY_CHECKS ?? 'direct',
    serviceCheckIntervalSeconds: env.SERVICE_CHECK_INTERVAL_SECONDS ?? 300,
    ...staffAuth,
  } satisfies AppConfig);
}
