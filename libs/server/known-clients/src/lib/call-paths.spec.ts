import type { AllowlistMap, Grant } from '@arrbiter/contracts';
import {
  canonicalizePath,
  compileAllowlist,
  effectiveAllowlist,
  resolveProxyRoute,
  RouteMatcher,
} from '@arrbiter/server/catalog';
import { overridesWithChanges } from '@arrbiter/server/permissions';
import { fixtureCatalog } from '../testing/fixtures';
import { concretePath, concreteRequest, pathParams, runtimeLiteral } from './call-paths';
import { KNOWN_CLIENTS } from './catalogue';
import { canonicalCalls, fitOf, sampleOf } from './fit';
import type { KnownClient, KnownClientCall } from './known-client';

const catalogs = new Map<string, RouteMatcher>();
const catalog = (type: string) => {
  let matcher = catalogs.get(type);
  if (!matcher) catalogs.set(type, (matcher = fixtureCatalog(type)));
  return matcher;
};
const client = (id: string) => KNOWN_CLIENTS.find((c) => c.id === id) as KnownClient;

/** Whether the proxy lets a request through an effective allowlist, decided as `ProxyAccess.authorize` decides it. */
function forwards(type: string, effective: AllowlistMap, method: KnownClientCall['method'], path: string): boolean {
  const { allowlist, extraRoutes } = compileAllowlist(catalog(type), effective);
  const canonical = canonicalizePath(path);
  if (!canonical.ok) return false;
  const route = resolveProxyRoute(catalog(type), extraRoutes, canonical.segments, method);
  return route !== undefined && allowlist.allows(route.shape, method);
}

/** An empty allowlist with the fit's missing calls granted, as fit/apply grants them (through overrides). */
function granted(c: KnownClient, type: string): AllowlistMap {
  const grants: Grant[] = fitOf(c, type, catalog(type), {}).missing.map(({ method, route }) => ({
    path: route,
    method: method as Grant['method'],
  }));
  return effectiveAllowlist({}, overridesWithChanges({}, {}, grants, []));
}

/** The same request with another value in each `{param}`: what the client sends on another run. */
function anotherRun(call: KnownClientCall): string {
  return concretePath({
    path: call.path,
    pathSamples: Object.fromEntries(pathParams(call.path).map((name, i) => [name, `other-${i}_2027.01.31.zip`])),
  });
}

describe('call paths', () => {
  const backup: KnownClientCall = {
    method: 'get',
    path: '/backup/{type}/{file}',
    pathSamples: { type: 'scheduled', file: 'sonarr_backup_v4.0.0_2026.08.01_04.00.00.zip' },
    query: 'x=1',
    source: { file: 'f', function: 'g' },
  };

  it('makes a template path concrete with its samples, and leaves a plain path as it is', () => {
    expect(pathParams(backup.path)).toEqual(['type', 'file']);
    expect(concretePath(backup)).toBe('/backup/scheduled/sonarr_backup_v4.0.0_2026.08.01_04.00.00.zip');
    expect(concreteRequest(backup)).toBe('/backup/scheduled/sonarr_backup_v4.0.0_2026.08.01_04.00.00.zip?x=1');
    expect(concretePath({ path: '/api/v3/movie/123' })).toBe('/api/v3/movie/123');
    expect(concretePath({ path: '/feed/{name}.ics', pathSamples: { name: 'radarr' } })).toBe('/feed/radarr.ics');
    expect(() => concretePath({ path: '/backup/{type}/{file}', pathSamples: { type: 'manual' } })).toThrow(
      '/backup/{type}/{file}: no sample for {file} in pathSamples',
    );
  });

  it.each([
    ['sonarr_backup_v1.0.0_2026.08.01_04.00.00.zip', 'a file name'],
    ['poster.jpg', 'a file name'],
    ['2026-08-01', 'a date, time or version'],
    ['v1.0', 'a date, time or version'],
    ['04:00', 'a date, time or version'],
    ['123', 'an id or timestamp'],
    ['1764201600000', 'an id or timestamp'],
    ['0123456789abcdef', 'a hash or UUID'],
    ['0b1a2c3d-4e5f-6789-abcd-ef0123456789', 'a hash or UUID'],
  ])('%s looks built at run time (%s)', (segment, kind) => {
    expect(runtimeLiteral(segment)).toBe(kind);
  });

  it.each(['api', 'v3', 'signalr', 'negotiate', 'MediaCover', 'MediaCoverProxy', 'qualityProfile', 'deadbeef', 'ping'])(
    '%s is a fixed segment',
    (segment) => {
      expect(runtimeLiteral(segment)).toBeUndefined();
    },
  );

  it("the fit matches Notifiarr's backup download as sent, and grants its template: any later backup file forwards", () => {
    const notifiarr = client('notifiarr');
    const call = notifiarr.services.sonarr?.find((c) => c.source.function === 'genericInstance.saveBackupFile');
    expect(call).toMatchObject({ path: '/backup/{type}/{file}', outsideApi: true });
    const canonical = canonicalCalls(notifiarr, 'sonarr').find((c) => c.call === call);
    expect(canonical).toMatchObject({
      path: '/backup/{type}/{file}',
      segments: ['backup', 'scheduled', 'sonarr_backup_v1.0.0_2026.08.01_04.00.00.zip'],
    });
    const fit = fitOf(notifiarr, 'sonarr', catalog('sonarr'), {});
    expect(fit.missing.filter((m) => m.route.startsWith('/backup'))).toMatchObject([
      {
        method: 'get',
        route: '/backup/{type}/{file}',
        sample: '/backup/scheduled/sonarr_backup_v1.0.0_2026.08.01_04.00.00.zip',
      },
    ]);
    const effective = granted(notifiarr, 'sonarr');
    expect(effective['/backup/{type}/{file}']).toEqual(['get']);
    // The next night's backup, and a manual one: what the client downloads on another day.
    for (const path of [
      '/backup/scheduled/sonarr_backup_v1.0.0_2026.08.01_04.00.00.zip',
      '/backup/scheduled/sonarr_backup_v4.0.16.2944_2026.11.28_04.00.00.zip',
      '/backup/manual/sonarr_backup_v4.0.16.2944_2026.11.28_10.31.07.zip',
    ])
      expect({ path, forwards: forwards('sonarr', effective, 'get', path) }).toEqual({ path, forwards: true });
    // Only GET, and only under /backup.
    expect(forwards('sonarr', effective, 'delete', '/backup/manual/x.zip')).toBe(false);
    expect(forwards('sonarr', effective, 'get', '/backup/manual/x.zip/more')).toBe(false);
    // A literal grant of the sample, as the catalogue wrote it before, matches only that one file.
    const literal = { '/backup/scheduled/sonarr_backup_v1.0.0_2026.08.01_04.00.00.zip': ['get'] } as AllowlistMap;
    expect(
      forwards('sonarr', literal, 'get', '/backup/scheduled/sonarr_backup_v4.0.16.2944_2026.11.28_04.00.00.zip'),
    ).toBe(false);
  });

  it("every catalogued call forwards once the fit's missing routes are granted, with its samples and with other values", () => {
    const problems: string[] = [];
    let templated = 0;
    for (const c of KNOWN_CLIENTS) {
      for (const type of Object.keys(c.services)) {
        const effective = granted(c, type);
        for (const call of c.services[type as keyof KnownClient['services']] ?? []) {
          const sent = sampleOf(call).split('?')[0];
          if (sent.includes('{')) problems.push(`${c.id} ${type} ${call.path}: the sample is not concrete`);
          if (!forwards(type, effective, call.method, sent))
            problems.push(`${c.id} ${type} ${call.method} ${sent}: refused`);
          if (call.pathSamples) {
            templated += 1;
            const other = anotherRun(call);
            if (!forwards(type, effective, call.method, other))
              problems.push(`${c.id} ${type} ${call.method} ${other}: refused (another value)`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    // Notifiarr's backup download on 5 types, Organizr's and TCM's covers, Cleanuparr's polls outside the API.
    expect(templated).toBeGreaterThanOrEqual(10);
  });
});
