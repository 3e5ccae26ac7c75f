/**
 * The one rule for what a Servarr route risks: whether it hands out secrets or controls the server
 * (`sensitive`: flagged in the permission catalog, never forwarded by learning mode), whether it
 * removes things (`destructive`), a short grouping (`purpose`) and a sentence saying why.
 *
 * Sensitivity fails closed. A route is sensitive when any of these holds, for every service type and
 * API version (a version this file does not know still gets the second and third):
 * 1. its name: a known place of secrets or control (`config/host`, v5 `settings/general`, providers…);
 * 2. it has an `update` or `script` segment (updates and update scripts run code on the host);
 * 3. its OpenAPI request or response schema carries a secret field (`operationSecretFields`), so a
 *    rename in a future API version is caught by what the route carries, not by what it is called.
 */

/** A short grouping of what a call does (the dashboard groups calls by it). */
export type RoutePurpose = 'read library' | 'add/search' | 'edit library' | 'delete' | 'settings' | 'system';

export interface RouteRisk {
  /** Hands out secrets (keys, passwords, backups) or controls the server (updates, scripts, restarts…). */
  sensitive: boolean;
  /** Removes things: every DELETE, and any call to a route ending in `editor` or `bulk`. */
  destructive: boolean;
  purpose: RoutePurpose;
  /** One sentence: why it is sensitive (else why destructive, else that it is neither). */
  reason: string;
}

/** What `routeRisk` reads of a catalog route: its path and, per method, the secret fields its schemas carry. */
export interface RiskRoute {
  path: string;
  operations?: Partial<Record<string, { secretFields?: readonly string[] } | undefined>>;
}

interface NameRule {
  pattern: RegExp;
  purpose: RoutePurpose;
  reason: string;
}

/**
 * Sensitive by name, matched on the path after `/api[/{version}]` (or `/feed/{version}`). The names of
 * every API version apply to every version: a name a version does not use costs nothing.
 */
const NAME_RULES: readonly NameRule[] = [
  {
    // v3 `config/host`; v5 split it into `settings/general` (and `settings/update`, an update segment).
    pattern: /^\/(config\/host|settings\/(general|host))(\/|$)/,
    purpose: 'settings',
    reason:
      "Holds the instance's own API key and its passwords, and can turn its authentication off or change where it listens.",
  },
  {
    pattern: /^\/system\/backup(\/|$)/,
    purpose: 'system',
    reason:
      "Backups hold every secret of the instance (its API key and providers' passwords); a restore replaces them.",
  },
  {
    pattern: /^\/system\/(restart|shutdown)(\/|$)/,
    purpose: 'system',
    reason: 'Restarts or shuts down the server.',
  },
  {
    // Providers, whose settings carry their credentials: v3 `notification` (and the older `connect`) is v5 `connection`.
    pattern:
      /^\/(downloadclient|indexer|indexerproxy|notification|connect|connection|applications|importlist|metadata)(\/|$)/,
    purpose: 'settings',
    reason:
      'Providers (download clients, indexers, connections, import lists, applications, metadata) carry their passwords and API keys in their settings.',
  },
  {
    pattern: /^\/filesystem(\/|$)/,
    purpose: 'system',
    reason: "Browses the server's file system.",
  },
  {
    pattern: /^\/command(\/|$)/,
    purpose: 'system',
    reason: 'Runs server commands (backups, updates, scans and every other task).',
  },
  {
    pattern: /^\/log\/file(\/|$)/,
    purpose: 'system',
    reason: "Log files reveal the server's internals and can hold secrets.",
  },
  {
    pattern: /^\/(authentication|user)(\/|$)/,
    purpose: 'settings',
    reason: 'Changes who may sign in to the server.',
  },
];

/**
 * Outside the API: the web UI's start-up script and its JSON form (they hand the UI the API key),
 * backups, log files, the UI's form login and its SignalR hub. Matched on the whole path.
 */
const OUTSIDE_API: readonly NameRule[] = [
  {
    pattern: /^\/initialize\.(json|js)$/,
    purpose: 'system',
    reason: "The web UI's start-up script hands out the instance's API key.",
  },
  {
    pattern: /^\/backup(\/|$)/,
    purpose: 'system',
    reason: 'Backups hold every secret of the instance (its API key and providers’ passwords).',
  },
  {
    pattern: /^\/logfile(\/|$)/,
    purpose: 'system',
    reason: "Log files reveal the server's internals and can hold secrets.",
  },
  {
    // The web UI's form login: its body is the UI's username and password (Notifiarr sends them to fetch a backup).
    pattern: /^\/login(\/|$)/,
    purpose: 'settings',
    reason: "The web UI's form login takes the instance's own username and password and opens a full UI session.",
  },
  {
    pattern: /^\/signalr(\/|$)/,
    purpose: 'system',
    reason: "The web UI's live message hub carries every change the server makes, settings included.",
  },
];

const CONTROL_SEGMENT = /(^|\/)(update|script)(\/|$)/;
const CONTROL_REASON = 'Updates the server or sets a script it runs: code execution on the Servarr host.';

/** `/api`, `/api/v3`, `/feed/v3`: what the name rules strip before they match. */
const API_PREFIX = /^\/(api(\/v\d+)?|feed\/v\d+)(?=\/|$)/;

const SYSTEM_NAMES = new Set([
  'system',
  'command',
  'update',
  'log',
  'logfile',
  'filesystem',
  'health',
  'diskspace',
  'backup',
  'signalr',
  'initialize.json',
  'initialize.js',
  'ping',
]);

const SETTINGS_NAMES = new Set([
  'config',
  'settings',
  'downloadclient',
  'indexer',
  'indexerproxy',
  'notification',
  'connect',
  'connection',
  'applications',
  'importlist',
  'importlistexclusion',
  'metadata',
  'metadataprofile',
  'authentication',
  'user',
  'qualityprofile',
  'qualitydefinition',
  'languageprofile',
  'customformat',
  'customfilter',
  'delayprofile',
  'releaseprofile',
  'remotepathmapping',
  'rootfolder',
  'autotagging',
  'tag',
  'appprofile',
  'indexerflag',
  'localization',
  'language',
]);

const SEARCH_NAMES = new Set(['lookup', 'search', 'release', 'parse', 'manualimport']);

/** A request path or route template without its query, lower-cased. */
function normalise(path: string): string {
  const q = path.indexOf('?');
  return (q < 0 ? path : path.slice(0, q)).toLowerCase();
}

/**
 * The secret fields the OpenAPI schemas of `method` on `route` carry (computed when the description
 * was read, see `operationSecretFields`). A method the description does not describe gets those of
 * every described method of the route: an undescribed call is not assumed harmless.
 */
function schemaSecrets(route: RiskRoute | undefined, method: string): readonly string[] {
  const operations = route?.operations;
  if (!operations) return [];
  const own = operations[method];
  if (own) return own.secretFields ?? [];
  return [...new Set(Object.values(operations).flatMap((op) => op?.secretFields ?? []))].sort();
}

function fallbackPurpose(method: string, rest: string): RoutePurpose {
  const segments = rest.split('/').filter((s) => s.length > 0);
  const first = segments[0] ?? '';
  if (SYSTEM_NAMES.has(first)) return 'system';
  if (SETTINGS_NAMES.has(first)) return 'settings';
  if (method === 'get' || method === 'head' || method === 'options')
    return segments.some((s) => SEARCH_NAMES.has(s)) ? 'add/search' : 'read library';
  if (method === 'post') return 'add/search';
  return 'edit library';
}

/**
 * The risk of `method` on `route` of a service of `serviceType` speaking `apiVersion` (`v3`, `v5`…;
 * undefined: read from the path). `route` is a request path, a route template, or a catalog route
 * (with its operations, whose precomputed `secretFields` bring in the schema rule).
 */
export function routeRisk(
  serviceType: string,
  apiVersion: string | undefined,
  method: string,
  route: string | RiskRoute,
): RouteRisk {
  const path = normalise(typeof route === 'string' ? route : route.path);
  const verb = method.toLowerCase();
  const catalogRoute = typeof route === 'string' ? undefined : route;
  const prefixed = API_PREFIX.exec(path);
  const rest = prefixed ? path.slice(prefixed[0].length) : path;

  const named =
    NAME_RULES.find((rule) => rule.pattern.test(rest)) ?? OUTSIDE_API.find((rule) => rule.pattern.test(path));
  const control = CONTROL_SEGMENT.test(path);
  const secrets = schemaSecrets(catalogRoute, verb);

  const lastSegment = path.replace(/\/+$/, '').split('/').pop() ?? '';
  const destructive = verb === 'delete' || lastSegment === 'editor' || lastSegment === 'bulk';
  const sensitive = named !== undefined || control || secrets.length > 0;

  let purpose: RoutePurpose;
  if (verb === 'delete') purpose = 'delete';
  else if (named) purpose = named.purpose;
  else if (control) purpose = 'system';
  else purpose = fallbackPurpose(verb, rest);

  let reason: string;
  if (named) reason = named.reason;
  else if (control) reason = CONTROL_REASON;
  else if (secrets.length > 0) {
    const version = apiVersion ?? /^\/api\/(v\d+)(\/|$)/.exec(path)?.[1];
    const source = [serviceType, version].filter((s) => s !== undefined && s !== '').join(' ');
    reason = `Its ${source ? `${source} ` : ''}OpenAPI schema carries secret fields (${secrets.join(', ')}).`;
  } else if (verb === 'delete') reason = 'Deletes data on the server.';
  else if (destructive) reason = 'Changes or deletes many items in one call.';
  else reason = 'Hands out no secrets, does not control the server and deletes nothing.';

  return { sensitive, destructive, purpose, reason };
}

/** Whether `name` names a secret: apiKey, password, …Password, passphrase, token or secret (any case). */
export function isSecretFieldName(name: string): boolean {
  return /^(apikey|password|passphrase|token|secret)$|password$/i.test(name);
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The schema keywords under which further schemas sit (a list, a map, or one schema). */
const SCHEMA_LISTS = ['allOf', 'oneOf', 'anyOf', 'prefixItems'] as const;
const SCHEMA_ONE = ['items', 'additionalProperties', 'not', 'contains', 'if', 'then', 'else'] as const;
const SCHEMA_MAPS = ['properties', 'patternProperties'] as const;

/**
 * The values a schema states for a `name` property: `enum`, `const`, `example(s)`, `default`. Servarr's
 * provider settings are dynamic `fields: [{ name, value }]` lists; where a description names their
 * fields this way, a secret name among them is a secret field like any other.
 */
function statedNames(schema: Json): string[] {
  const values: unknown[] = [];
  for (const key of ['enum', 'examples']) if (Array.isArray(schema[key])) values.push(...(schema[key] as unknown[]));
  for (const key of ['const', 'example', 'default']) if (key in schema) values.push(schema[key]);
  return values.filter((v): v is string => typeof v === 'string');
}

/**
 * Walks the schemas under `roots` (resolving local `$ref`s, once each) and collects the secret field
 * names they carry: property names, and the stated names of `{ name, value }` field lists.
 */
function collectSecretFields(document: Json, roots: unknown[], found: Set<string>): void {
  const seen = new Set<unknown>();
  const stack = [...roots];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) {
      stack.push(...(node as unknown[]));
      continue;
    }
    if (!isObject(node) || seen.has(node)) continue;
    seen.add(node);
    const ref = node['$ref'];
    if (typeof ref === 'string') {
      const target = resolveRef(document, ref);
      if (target !== undefined) stack.push(target);
      // Siblings of `$ref` (OpenAPI 3.1) are read too.
    }
    for (const key of SCHEMA_MAPS) {
      const map = node[key];
      if (!isObject(map)) continue;
      for (const [name, schema] of Object.entries(map)) {
        if (key === 'properties' && isSecretFieldName(name)) found.add(name);
        stack.push(schema);
      }
    }
    const properties = node['properties'];
    if (isObject(properties) && 'name' in properties && 'value' in properties) {
      let nameSchema = properties['name'];
      if (isObject(nameSchema) && typeof nameSchema['$ref'] === 'string')
        nameSchema = resolveRef(document, nameSchema['$ref']) ?? nameSchema;
      if (isObject(nameSchema))
        for (const name of statedNames(nameSchema)) if (isSecretFieldName(name)) found.add(name);
    }
    for (const key of SCHEMA_LISTS) if (Array.isArray(node[key])) stack.push(...(node[key] as unknown[]));
    for (const key of SCHEMA_ONE) if (isObject(node[key])) stack.push(node[key]);
  }
}

function resolveRef(document: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = document;
  for (const part of ref.slice(2).split('/'))
    node = isObject(node) ? node[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  return node;
}

/** The schemas of a request body or response (OpenAPI 3 `content`, Swagger 2 `schema`), after `$ref`. */
function payloadSchemas(document: Json, payload: unknown): unknown[] {
  const resolved =
    isObject(payload) && typeof payload['$ref'] === 'string' ? resolveRef(document, payload['$ref']) : payload;
  if (!isObject(resolved)) return [];
  const schemas: unknown[] = [];
  if ('schema' in resolved) schemas.push(resolved['schema']);
  const content = resolved['content'];
  if (isObject(content)) for (const media of Object.values(content)) if (isObject(media)) schemas.push(media['schema']);
  return schemas;
}

/**
 * The secret field names (see `isSecretFieldName`) that an OpenAPI operation's request or response
 * schemas carry, sorted: `$ref`, `allOf`/`oneOf`/`anyOf`, arrays and nested objects are followed.
 * Computed once per description when it is read (the catalog keeps it as `secretFields`), never per call.
 */
export function operationSecretFields(document: unknown, operation: unknown, pathParameters?: unknown): string[] {
  if (!isObject(document) || !isObject(operation)) return [];
  const roots: unknown[] = [...payloadSchemas(document, operation['requestBody'])];
  // Swagger 2: the body is a parameter.
  for (const list of [pathParameters, operation['parameters']]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const param = isObject(raw) && typeof raw['$ref'] === 'string' ? resolveRef(document, raw['$ref']) : raw;
      if (isObject(param) && param['in'] === 'body') roots.push(param['schema']);
    }
  }
  const responses = operation['responses'];
  if (isObject(responses))
    for (const response of Object.values(responses)) roots.push(...payloadSchemas(document, response));
  const found = new Set<string>();
  collectSecretFields(document, roots, found);
  return [...found].sort((a, b) => a.localeCompare(b));
}
