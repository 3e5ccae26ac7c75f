import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import {
  canonicalizePath,
  CatalogRoute,
  isHttpMethod,
  ResolvedRoute,
  RouteMatcher,
  routeTemplateProblem,
  SegmentKind,
} from '@arrbiter/server/catalog';
import {
  concretePath,
  KNOWN_CLIENTS,
  KNOWN_SERVICE_TYPES,
  KnownClient,
  KnownClientCall,
  KnownServiceType,
  pathParams,
  runtimeLiteral,
} from '../index';
import { fixtureRoutes, readJson, TEMPLATE_FIXTURES as TEMPLATES } from '../testing/fixtures';

const LIB = resolve(__dirname, '../..');
const DATA = join(LIB, 'data');
const SCHEMA = join(LIB, 'known-client.schema.json');
const NOT_CATALOGUED = join(LIB, 'not-catalogued.json');

/** Per service type, the route table the proxy builds for a service serving every fixture version of it. */
const catalogs = new Map<string, { matcher: RouteMatcher; routes: Map<string, CatalogRoute> }>();
for (const type of KNOWN_SERVICE_TYPES) {
  const routes = fixtureRoutes(type);
  catalogs.set(type, { matcher: new RouteMatcher(routes), routes: new Map(routes.map((r) => [r.path, r])) });
}

/** Template name → the service types it has a block for, from `<serviceType>/<name>.json`. */
const templates = new Map<string, string[]>();
for (const type of readdirSync(TEMPLATES)) {
  for (const file of readdirSync(join(TEMPLATES, type)).filter((f) => f.endsWith('.json'))) {
    const name = file.replace(/\.json$/, '');
    templates.set(name, [...(templates.get(name) ?? []), type]);
  }
}

const files = readdirSync(DATA)
  .filter((f) => f.endsWith('.json'))
  .sort();
const clients = new Map(files.map((f) => [f, readJson(join(DATA, f)) as KnownClient]));
const validate = new Ajv2020({ allErrors: true, strict: true }).compile(readJson(SCHEMA) as object);

const CREDENTIAL_PARAMS = new Set(['apikey', 'access_token']);
const DOT_SEGMENT = /(^|\/)\.{1,2}(\/|$)/;

/**
 * What is wrong with a call's `{param}`s and literal segments: each parameter has exactly one sample, a
 * single segment; a parameter stands where no catalog route canonicalizes the segment (there, a sample id
 * is written); and no literal segment that no route turns into a parameter looks built at run time
 * (`runtimeLiteral`: a file name, a date or version, an id, a hash): granted as written, it would match
 * only the sample.
 */
function pathProblems(label: string, call: KnownClientCall, route: ResolvedRoute | undefined): string[] {
  const problems: string[] = [];
  const params = pathParams(call.path);
  const samples = Object.keys(call.pathSamples ?? {});
  if ([...params].sort().join() !== [...samples].sort().join() || new Set(params).size !== params.length)
    problems.push(`${label}: pathSamples must name each {param} of the path once (${samples.join(', ') || 'none'})`);
  const template = routeTemplateProblem(call.path);
  if (template) problems.push(`${label}: ${template}`);
  for (const [name, sample] of Object.entries(call.pathSamples ?? {})) {
    const canonical = canonicalizePath(`/${sample}`);
    if (!canonical.ok || canonical.path !== `/${sample}`)
      problems.push(`${label}: the sample of {${name}} is not one canonical segment`);
  }
  call.path
    .split('/')
    .filter((segment) => segment !== '')
    .forEach((segment, i) => {
      const canonicalized = route !== undefined && route.kinds[i] !== SegmentKind.Literal;
      if (segment.includes('{') && canonicalized)
        problems.push(`${label}: ${route.path} canonicalizes "${segment}": write a sample id, not a {param}`);
      const kind = segment.includes('{') || route !== undefined ? undefined : runtimeLiteral(segment);
      if (kind)
        problems.push(
          `${label}: "${segment}" looks built at run time (${kind}) and no route canonicalizes it: write it as a {param} with a sample in pathSamples`,
        );
    });
  return problems;
}

/** What is wrong with one call, resolved as the proxy resolves a request (canonical segments, RouteMatcher). */
function callProblems(type: KnownServiceType, call: KnownClientCall): string[] {
  const label = `${type}: ${call.method.toUpperCase()} ${call.path}${call.query ? `?${call.query}` : ''}`;
  const problems: string[] = [];
  if (DOT_SEGMENT.test(call.path)) problems.push(`${label}: the path has a "." or ".." segment`);
  let sent: string;
  try {
    sent = concretePath(call);
  } catch (error) {
    return [...problems, `${label}: ${(error as Error).message}`];
  }
  const canonical = canonicalizePath(sent);
  if (!canonical.ok) problems.push(`${label}: the proxy refuses the path (${canonical.reason})`);
  for (const pair of call.query?.split('&') ?? []) {
    const name = decodeURIComponent(pair.split('=')[0]).toLowerCase();
    if (CREDENTIAL_PARAMS.has(name)) problems.push(`${label}: the query carries a credential (${name})`);
  }
  const catalog = catalogs.get(type);
  if (!catalog || catalog.routes.size === 0) return [...problems, `${label}: no OpenAPI fixture for ${type}`];
  if (!isHttpMethod(call.method)) return [...problems, `${label}: not an HTTP method the proxy knows`];
  const segments = canonical.ok ? canonical.segments : sent.split('/').filter((s) => s !== '');
  const route = catalog.matcher.resolve(segments, call.method);
  problems.push(...pathProblems(label, call, route));
  if (route && call.outsideApi) {
    problems.push(`${label}: resolves to ${route.path}, so it is not outside the API`);
  } else if (!route && !call.outsideApi) {
    problems.push(`${label}: resolves to no route of the ${type} description; mark it outsideApi with a note`);
  } else if (route && !catalog.routes.get(route.path)?.operations[call.method] && !call.note) {
    problems.push(`${label}: ${route.path} has no ${call.method} operation in the description; say why in a note`);
  }
  return problems;
}

describe('known clients data', () => {
  it('has the catalogued clients', () => {
    expect(files.length).toBeGreaterThanOrEqual(20);
  });

  it('ships every file with the server: the catalogue imports each one as it is', () => {
    expect(KNOWN_CLIENTS.map((client) => `${client.id}.json`)).toEqual(files);
    for (const client of KNOWN_CLIENTS) expect(client).toEqual(clients.get(`${client.id}.json`));
  });

  describe.each(files)('%s', (file) => {
    const client = clients.get(file) as KnownClient;

    it('matches the schema', () => {
      const valid = validate(client);
      expect(validate.errors ?? []).toEqual([]);
      expect(valid).toBe(true);
    });

    it('is named by its id and cites the source of every call', () => {
      expect(`${client.id}.json`).toBe(file);
      const uncited = Object.entries(client.services)
        .flatMap(([type, calls]) => (calls ?? []).map((call) => ({ type, call })))
        .filter(({ call }) => !call.source?.file?.trim() || !call.source?.function?.trim());
      expect(uncited).toEqual([]);
    });

    it('names only templates of the fixture repository, and has calls for every service type they cover', () => {
      for (const name of client.templateNames) {
        expect({ name, known: templates.has(name) }).toEqual({ name, known: true });
        for (const type of templates.get(name) ?? [])
          expect({ name, type, calls: (client.services[type as KnownServiceType]?.length ?? 0) > 0 }).toEqual({
            name,
            type,
            calls: true,
          });
      }
    });

    it('lists each call once, and every call resolves to a described route or is marked outside the API', () => {
      const problems: string[] = [];
      for (const [type, calls] of Object.entries(client.services) as [KnownServiceType, KnownClientCall[]][]) {
        const seen = new Set<string>();
        for (const call of calls) {
          const key = `${call.method} ${call.path}?${call.query ?? ''}`;
          if (seen.has(key)) problems.push(`${type}: ${key} is listed twice`);
          seen.add(key);
          problems.push(...callProblems(type, call));
        }
      }
      expect(problems).toEqual([]);
    });
  });

  describe('paths built at run time', () => {
    const source = { file: 'pkg/triggers/backups/corruption.go', function: 'genericInstance.saveBackupFile' };
    const note = 'The newest backup file.';

    it('refuses a literal the client builds at run time where no route canonicalizes it', () => {
      // Notifiarr's backup download as the catalogue wrote it up to v0.9.5's first reading.
      const sample: KnownClientCall = {
        method: 'get',
        path: '/backup/scheduled/sonarr_backup_v1.0.0_2026.08.01_04.00.00.zip',
        source,
        note,
        outsideApi: true,
      };
      expect(callProblems('sonarr', sample)).toEqual([
        'sonarr: GET /backup/scheduled/sonarr_backup_v1.0.0_2026.08.01_04.00.00.zip: "sonarr_backup_v1.0.0_2026.08.01_04.00.00.zip" looks built at run time (a file name) and no route canonicalizes it: write it as a {param} with a sample in pathSamples',
      ]);
      const template = { ...sample, path: '/backup/{type}/{file}', pathSamples: { type: 'scheduled', file: 'a.zip' } };
      expect(callProblems('sonarr', template)).toEqual([]);
      // Outside the API, an id is built at run time too: granted as written it opens one item only.
      expect(callProblems('radarr', { ...sample, path: '/api/MediaCover/123/fanart.jpg' })).toHaveLength(2);
    });

    it('keeps sample ids where a route canonicalizes them, and needs exactly one sample per {param}', () => {
      const movie: KnownClientCall = { method: 'get', path: '/api/v3/movie/123', source };
      expect(callProblems('radarr', movie)).toEqual([]);
      expect(callProblems('radarr', { ...movie, path: '/api/v3/movie/{id}', pathSamples: { id: '123' } })).toEqual([
        'radarr: GET /api/v3/movie/{id}: /api/v3/movie/{id} canonicalizes "{id}": write a sample id, not a {param}',
      ]);
      const backup = { ...movie, path: '/backup/{type}/{file}', note, outsideApi: true as const };
      expect(callProblems('sonarr', { ...backup, pathSamples: { type: 'scheduled' } })).toEqual([
        'sonarr: GET /backup/{type}/{file}: /backup/{type}/{file}: no sample for {file} in pathSamples',
      ]);
      expect(
        callProblems('sonarr', { ...backup, pathSamples: { type: 'scheduled', file: 'a.zip', other: 'x' } }),
      ).toEqual([
        'sonarr: GET /backup/{type}/{file}: pathSamples must name each {param} of the path once (type, file, other)',
      ]);
      expect(callProblems('sonarr', { ...backup, pathSamples: { type: 'scheduled', file: '..' } })).toContain(
        'sonarr: GET /backup/{type}/{file}: the sample of {file} is not one canonical segment',
      );
    });

    it('the schema wants pathSamples with a {param}, and only then', () => {
      const client = clients.get('notifiarr.json') as KnownClient;
      const withCall = (call: object) => ({ ...client, services: { sonarr: [call] } });
      const call = { method: 'get', path: '/backup/{type}/{file}', source, note, outsideApi: true };
      expect(validate(withCall(call))).toBe(false);
      expect(validate(withCall({ ...call, pathSamples: { type: 'scheduled', file: 'a.zip' } }))).toBe(true);
      expect(validate(withCall({ ...call, path: '/ping', pathSamples: { type: 'scheduled' } }))).toBe(false);
      expect(validate(withCall({ ...call, pathSamples: { type: 'scheduled', file: 'a/b.zip' } }))).toBe(false);
    });
  });

  it('claims every template of the fixture repository once, or says why its client is not catalogued', () => {
    const notCatalogued = readJson(NOT_CATALOGUED) as Record<string, string>;
    const claims = new Map<string, string[]>();
    for (const client of clients.values())
      for (const name of client.templateNames) claims.set(name, [...(claims.get(name) ?? []), client.id]);
    const problems: string[] = [];
    for (const name of templates.keys()) {
      const by = claims.get(name) ?? [];
      const reason = notCatalogued[name];
      if (by.length > 1) problems.push(`${name} is claimed by ${by.join(', ')}`);
      if (by.length === 0 && !reason?.trim()) problems.push(`${name} is claimed by no client and has no reason`);
      if (by.length > 0 && reason !== undefined) problems.push(`${name} is catalogued (${by[0]}) and listed as not`);
    }
    for (const name of Object.keys(notCatalogued))
      if (!templates.has(name)) problems.push(`not-catalogued.json names ${name}, which is no template`);
    expect(problems).toEqual([]);
  });
});
