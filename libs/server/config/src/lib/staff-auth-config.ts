import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { AdminRole } from '@arrbiter/contracts';
import proxyAddr from 'proxy-addr';
import { EnvName, envNamesReadBy } from './env-variables';

/** Single sign-on through an OpenID provider (`OIDC_*`). */
export interface OidcConfig {
  /** The issuer identifier (discovery at `<issuer>/.well-known/openid-configuration`). */
  readonly issuer: string;
  readonly clientId: string;
  /** `undefined`: a public client (PKCE alone authenticates the code exchange). */
  readonly clientSecret: string | undefined;
  readonly scopes: readonly string[];
  /** The claim (ID token or userinfo) whose value(s) the role map reads. */
  readonly roleClaim: string;
  /** Claim value → role, in the order written; the highest role among the user's values wins. */
  readonly roleMap: readonly { readonly value: string; readonly role: AdminRole }[];
  /** The role of a user with no mapped value; `undefined`: such a user is refused. */
  readonly defaultRole: 'viewer' | 'editor' | undefined;
  /** Whether an unknown user is created (with the mapped role) at their first sign-in. */
  readonly autoCreate: boolean;
  /** The sign-in button's text. */
  readonly label: string;
}

/** Trusted forward-auth (`TRUSTED_AUTH_*`): a front proxy names the signed-in user in a header. */
export interface TrustedAuthConfig {
  /** Lower-cased header name, e.g. `remote-user`. */
  readonly header: string;
  /** TCP peer addresses, CIDRs or proxy-addr names (`loopback`…) the header is honoured from. */
  readonly from: readonly string[];
  /** Whether an unknown user is created as a viewer. */
  readonly autoCreate: boolean;
}

export interface StaffAuthConfig {
  passwordSignIn: boolean;
  oidc: OidcConfig | undefined;
  trustedAuth: TrustedAuthConfig | undefined;
}

type Variable = Extract<EnvName, 'PASSWORD_SIGN_IN' | `OIDC_${string}` | `TRUSTED_AUTH_${string}`>;

/** The variables this part of the configuration reads (`ENV_VARIABLES` read by `parseStaffAuth`). */
export const STAFF_AUTH_VARIABLES = envNamesReadBy('parseStaffAuth') as readonly Variable[];

const ROLES: readonly AdminRole[] = ['owner', 'editor', 'viewer'];
const DEFAULT_SCOPES = ['openid', 'profile', 'email', 'groups'];
/** Headers a forward-auth proxy cannot be trusted to set for Arrbiter: its own credentials and routing. */
const RESERVED_HEADERS = new Set([
  'authorization',
  'cookie',
  'host',
  'origin',
  'referer',
  'x-api-key',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'content-type',
  'content-length',
]);
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/;
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function flag(name: Variable, value: string | undefined, fallback: boolean, problems: string[]): boolean {
  if (value === undefined) return fallback;
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  problems.push(`${name} must be true or false (got ${JSON.stringify(value)})`);
  return fallback;
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);
}

/** Whether a TRUSTED_AUTH_FROM entry covers every address (`0.0.0.0/0`, `::/0`, every IPv4-mapped address). */
function coversEverything(entry: string): boolean {
  const slash = entry.lastIndexOf('/');
  if (slash < 0) return false;
  const prefix = Number(entry.slice(slash + 1));
  const address = entry.slice(0, slash);
  if (prefix === 0) return true;
  return /^::ffff:0(\.0\.0\.0|:0)$/i.test(address) && prefix <= 96;
}

/** A secret from `<name>` or the file `<name>_FILE` names (trimmed); problems name the variable, never the value. */
export function readSecret(
  value: string | undefined,
  file: string | undefined,
  name: string,
  problems: string[],
): string | undefined {
  if (value !== undefined && file !== undefined) {
    problems.push(`${name} and ${name}_FILE are both set: set only one`);
    return undefined;
  }
  if (file === undefined) return value;
  try {
    const text = readFileSync(file, 'utf8').trim();
    if (text === '') problems.push(`${name}_FILE is empty: ${file}`);
    return text || undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    problems.push(`${name}_FILE cannot be read (${code}): ${file}`);
    return undefined;
  }
}

function parseOidc(read: (name: Variable) => string | undefined, problems: string[]): OidcConfig | undefined {
  const issuer = read('OIDC_ISSUER');
  if (issuer === undefined) {
    const stray = STAFF_AUTH_VARIABLES.filter((name) => name.startsWith('OIDC_') && read(name) !== undefined);
    if (stray.length > 0)
      problems.push(`${stray.join(', ')} ${stray.length > 1 ? 'are' : 'is'} set without OIDC_ISSUER`);
    return undefined;
  }
  let url: URL | undefined;
  try {
    url = new URL(issuer);
  } catch {
    problems.push(`OIDC_ISSUER must be a URL such as https://auth.example.com (got ${JSON.stringify(issuer)})`);
  }
  if (url && url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) {
    problems.push(
      `OIDC_ISSUER must be https:// (plain http only on a loopback address, for tests) (got ${JSON.stringify(issuer)})`,
    );
  }
  if (url && (url.search || url.hash)) problems.push('OIDC_ISSUER must not have a query or fragment');

  const clientId = read('OIDC_CLIENT_ID');
  if (clientId === undefined) problems.push('OIDC_CLIENT_ID is required with OIDC_ISSUER');
  const clientSecret = readSecret(
    read('OIDC_CLIENT_SECRET'),
    read('OIDC_CLIENT_SECRET_FILE'),
    'OIDC_CLIENT_SECRET',
    problems,
  );

  const scopes = read('OIDC_SCOPES') === undefined ? DEFAULT_SCOPES : list(read('OIDC_SCOPES')?.replace(/\s+/g, ','));
  if (!scopes.includes('openid'))
    problems.push(`OIDC_SCOPES must include openid (got ${JSON.stringify(read('OIDC_SCOPES'))})`);
  for (const scope of scopes) {
    if (!/^[\x21\x23-\x5B\x5D-\x7E]+$/.test(scope))
      problems.push(`OIDC_SCOPES: ${JSON.stringify(scope)} is not a scope`);
  }

  const roleClaim = read('OIDC_ROLE_CLAIM') ?? 'groups';
  if (!/^[A-Za-z0-9_:./-]{1,128}$/.test(roleClaim)) {
    problems.push(`OIDC_ROLE_CLAIM must be a claim name such as groups (got ${JSON.stringify(roleClaim)})`);
  }

  const roleMap: { value: string; role: AdminRole }[] = [];
  for (const pair of list(read('OIDC_ROLE_MAP'))) {
    const at = pair.lastIndexOf('=');
    const value = pair.slice(0, at).trim();
    const role = pair.slice(at + 1).trim() as AdminRole;
    if (at <= 0 || value === '' || !ROLES.includes(role)) {
      problems.push(
        `OIDC_ROLE_MAP: ${JSON.stringify(pair)} is not claimValue=role with a role of owner, editor or viewer`,
      );
    } else roleMap.push({ value, role });
  }

  const defaultRole = read('OIDC_DEFAULT_ROLE');
  if (defaultRole !== undefined && defaultRole !== 'viewer' && defaultRole !== 'editor') {
    problems.push(`OIDC_DEFAULT_ROLE must be viewer or editor (got ${JSON.stringify(defaultRole)})`);
  }
  const autoCreate = flag('OIDC_AUTO_CREATE', read('OIDC_AUTO_CREATE'), false, problems);
  if (autoCreate && roleMap.length === 0 && defaultRole === undefined) {
    problems.push('OIDC_AUTO_CREATE=true needs OIDC_ROLE_MAP or OIDC_DEFAULT_ROLE: a new account needs a role');
  }
  return {
    // As written: the discovered `issuer` must match it exactly (Authentik's ends with a slash).
    issuer,
    clientId: clientId ?? '',
    clientSecret,
    scopes,
    roleClaim,
    roleMap,
    defaultRole: defaultRole as OidcConfig['defaultRole'],
    autoCreate,
    label: url ? `Sign in with ${url.host}` : 'Sign in with SSO',
  };
}

function parseTrustedAuth(
  read: (name: Variable) => string | undefined,
  problems: string[],
): TrustedAuthConfig | undefined {
  const header = read('TRUSTED_AUTH_HEADER');
  const fromValue = read('TRUSTED_AUTH_FROM');
  if (header === undefined) {
    for (const name of ['TRUSTED_AUTH_FROM', 'TRUSTED_AUTH_AUTO_CREATE'] as const) {
      if (read(name) !== undefined) problems.push(`${name} is set without TRUSTED_AUTH_HEADER`);
    }
    return undefined;
  }
  if (!HEADER_NAME.test(header)) {
    problems.push(`TRUSTED_AUTH_HEADER must be a header name such as Remote-User (got ${JSON.stringify(header)})`);
  } else if (RESERVED_HEADERS.has(header.toLowerCase())) {
    problems.push(
      `TRUSTED_AUTH_HEADER cannot be ${header}: pick the header your forward-auth proxy sets, e.g. Remote-User`,
    );
  }
  const from = list(fromValue);
  if (from.length === 0) {
    problems.push(
      'TRUSTED_AUTH_FROM is required with TRUSTED_AUTH_HEADER: the addresses or CIDRs of the forward-auth proxy (or loopback), which alone may set the header',
    );
  }
  const before = problems.length;
  for (const entry of from) {
    if (coversEverything(entry)) {
      problems.push(
        `TRUSTED_AUTH_FROM: ${entry} covers every address; name the forward-auth proxy's own address or network`,
      );
    } else if (!['loopback', 'linklocal', 'uniquelocal'].includes(entry) && !isIP(entry.split('/')[0])) {
      problems.push(
        `TRUSTED_AUTH_FROM: ${JSON.stringify(entry)} is not an address, a CIDR, loopback, linklocal or uniquelocal`,
      );
    }
  }
  if (problems.length === before) {
    try {
      proxyAddr.compile(from);
    } catch (error) {
      problems.push(`TRUSTED_AUTH_FROM: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const autoCreate = flag('TRUSTED_AUTH_AUTO_CREATE', read('TRUSTED_AUTH_AUTO_CREATE'), false, problems);
  return { header: header.toLowerCase(), from, autoCreate };
}

/**
 * Reads how admin staff sign in: passwords (`PASSWORD_SIGN_IN`), single sign-on (`OIDC_*`) and trusted
 * forward-auth (`TRUSTED_AUTH_*`). Problems are added to `problems`, each naming its variable.
 */
export function parseStaffAuth(read: (name: Variable) => string | undefined, problems: string[]): StaffAuthConfig {
  const passwordSignIn = flag('PASSWORD_SIGN_IN', read('PASSWORD_SIGN_IN'), true, problems);
  const oidc = parseOidc(read, problems);
  const trustedAuth = parseTrustedAuth(read, problems);
  if (!passwordSignIn && read('OIDC_ISSUER') === undefined && read('TRUSTED_AUTH_HEADER') === undefined) {
    problems.push('PASSWORD_SIGN_IN=false needs OIDC_ISSUER or TRUSTED_AUTH_HEADER: otherwise nobody can sign in');
  }
  return { passwordSignIn, oidc, trustedAuth };
}
