import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AllowlistMap, FitResult } from '@arrbiter/contracts';
import { effectiveAllowlist, RouteMatcher } from '@arrbiter/server/catalog';
import { overridesWithChanges } from '@arrbiter/server/permissions';
import { readTemplateDirectory, TemplateSet } from '@arrbiter/server/templates';
import { fixtureCatalog, TEMPLATE_FIXTURES } from '../testing/fixtures';
import { KNOWN_CLIENTS } from './catalogue';
import { FitChangeError, fitChanges, fitOf, suggestedBlock, templateFileText } from './fit';
import type { KnownClient } from './known-client';

const catalogs = new Map<string, RouteMatcher>();
const catalog = (type: string) => {
  let matcher = catalogs.get(type);
  if (!matcher) catalogs.set(type, (matcher = fixtureCatalog(type)));
  return matcher;
};
const client = (id: string) => KNOWN_CLIENTS.find((c) => c.id === id) as KnownClient;
const missingOf = (fit: FitResult) => fit.missing.map((m) => `${m.method} ${m.route} <- ${m.sample}`);
const unusedOf = (fit: FitResult) => fit.unused.map((u) => `${u.method} ${u.route}`);

describe(fitOf.name, () => {
  let templates: TemplateSet;
  /** Every catalogued client with a community template, per service type the template has a block for. */
  let cases: { client: KnownClient; name: string; type: string; block: AllowlistMap }[];
  const block = (name: string, type: string) => templates.get(name)?.[type] ?? {};

  beforeAll(async () => {
    ({ templates } = await readTemplateDirectory(TEMPLATE_FIXTURES));
    cases = KNOWN_CLIENTS.flatMap((c) =>
      c.templateNames.flatMap((name) =>
        Object.entries(templates.get(name) ?? {}).map(([type, b]) => ({ client: c, name, type, block: b })),
      ),
    );
  });

  it('covers every catalogued client with a template: 537 of their 674 calls get through their own template', () => {
    expect(cases.length).toBe(61);
    let calls = 0;
    let covered = 0;
    for (const { client: c, type, block: b } of cases) {
      const fit = fitOf(c, type, catalog(type), b);
      calls += fit.calls;
      covered += fit.covered;
      // Each refused call is in `missing` under its method and route, once.
      expect(new Set(fit.missing.map((m) => `${m.method} ${m.route.toLowerCase()}`)).size).toBe(fit.missing.length);
      expect(fit.missing.length).toBeLessThanOrEqual(fit.calls - fit.covered);
      expect(fit.missing.length > 0).toBe(fit.covered < fit.calls);
    }
    // 674: Notifiarr's Sonarr GET /api/v3/history (its dashboard trigger), which its template grants.
    expect({ calls, covered }).toEqual({ calls: 674, covered: 537 });
  });

  it('Maintainerr on Radarr: its template refuses 12 of its 17 calls, and it uses every grant', () => {
    const fit = fitOf(client('maintainerr'), 'radarr', catalog('radarr'), block('maintainerr', 'radarr'));
    expect(fit).toMatchObject({ client: 'maintainerr', clientName: 'Maintainerr', serviceType: 'radarr' });
    expect({ calls: fit.calls, covered: fit.covered }).toEqual({ calls: 17, covered: 5 });
    expect(missingOf(fit)).toEqual([
      // Sent as `qualityProfile`: the route is matched without regard to case, as Radarr does.
      'get /api/v3/qualityprofile <- /api/v3/qualityProfile',
      'get /api/v3/rootfolder <- /api/v3/rootfolder',
      'get /api/v3/diskspace <- /api/v3/diskspace',
      'post /api/v3/tag <- /api/v3/tag',
      'get /api/v3/movie/{id} <- /api/v3/movie/123',
      'put /api/v3/movie/{id} <- /api/v3/movie/123',
      'put /api/v3/movie/editor <- /api/v3/movie/editor',
      'get /api/v3/moviefile <- /api/v3/moviefile?movieId=123',
      'delete /api/v3/moviefile/{id} <- /api/v3/moviefile/456',
      'post /api/v3/exclusions/bulk <- /api/v3/exclusions/bulk',
      'get /api/v3/history/movie <- /api/v3/history/movie?movieId=123',
      'post /api/v3/command <- /api/v3/command',
    ]);
    expect(fit.missing[4].source).toEqual({
      file: 'apps/server/src/modules/api/servarr-api/helpers/radarr.helper.ts',
      function: 'RadarrApi.updateMovie',
    });
    expect(fit.unused).toEqual([]);
  });

  it("Maintainerr on Sonarr: 11 calls refused, and the template's series lookup is never used", () => {
    const fit = fitOf(client('maintainerr'), 'sonarr', catalog('sonarr'), block('maintainerr', 'sonarr'));
    expect({ calls: fit.calls, covered: fit.covered, missing: fit.missing.length }).toEqual({
      calls: 20,
      covered: 9,
      missing: 11,
    });
    expect(missingOf(fit)).toContain(
      'delete /api/v3/series/{id} <- /api/v3/series/12?deleteFiles=true&addImportListExclusion=false',
    );
    expect(unusedOf(fit)).toEqual(['get /api/v3/series/lookup']);
  });

  it("Prowlarr's application sync cannot delete the indexers it created, and its templates grant six routes it never calls", () => {
    for (const type of ['radarr', 'sonarr']) {
      const fit = fitOf(client('prowlarr'), type, catalog(type), block('prowlarr', type));
      expect({ type, calls: fit.calls, covered: fit.covered }).toEqual({ type, calls: 7, covered: 6 });
      expect(fit.missing).toEqual([
        {
          method: 'delete',
          route: '/api/v3/indexer/{id}',
          sample: '/api/v3/indexer/12',
          source: {
            file: `src/NzbDrone.Core/Applications/${type === 'radarr' ? 'Radarr/RadarrV3Proxy.cs' : 'Sonarr/SonarrV3Proxy.cs'}`,
            function: `${type === 'radarr' ? 'RadarrV3Proxy' : 'SonarrV3Proxy'}.RemoveIndexer`,
          },
          risk: {
            sensitive: true,
            destructive: true,
            purpose: 'delete',
            reason: expect.stringContaining('Providers'),
          },
        },
      ]);
    }
    const radarr = fitOf(client('prowlarr'), 'radarr', catalog('radarr'), block('prowlarr', 'radarr'));
    expect(unusedOf(radarr)).toEqual([
      'get /api/v3/config/indexer',
      'get /api/v3/config/indexer/{id}',
      'put /api/v3/config/indexer/{id}',
      'post /api/v3/indexer/action/{name}',
      'post /api/v3/indexer/testall',
      'get /api/v3/indexerflag',
    ]);
  });

  it("Bazarr's SignalR is in no template; its legacy probe, outside the API, passes where the template names it", () => {
    const radarr = fitOf(client('bazarr'), 'radarr', catalog('radarr'), block('bazarr', 'radarr'));
    expect({ calls: radarr.calls, covered: radarr.covered }).toEqual({ calls: 13, covered: 9 });
    expect(missingOf(radarr)).toEqual([
      'get /api/v3/history <- /api/v3/history?eventType=1&movieIds=42',
      'get /api/v3/filesystem <- /api/v3/filesystem?path=/movies/&allowFoldersWithoutTrailingSlashes=true&includeFiles=false',
      // Outside the API: no route, so the exact path is what a grant adds (as a warning's grant does).
      'post /signalr/messages/negotiate <- /signalr/messages/negotiate',
      'get /signalr/messages <- /signalr/messages?id=0b1a2c3d',
    ]);
    expect(unusedOf(radarr)).toEqual(['get /api/v3/tag/{id}']);
    const sonarr = fitOf(client('bazarr'), 'sonarr', catalog('sonarr'), block('bazarr', 'sonarr'));
    expect(missingOf(sonarr).filter((m) => m.includes('signalr'))).toEqual([
      'post /signalr/messages/negotiate <- /signalr/messages/negotiate',
      'get /signalr/messages <- /signalr/messages?id=0b1a2c3d',
      'get /signalr/negotiate <- /signalr/negotiate?connectionData=%5B%7B%22name%22%3A+%22%22%7D%5D&clientProtocol=1.5',
      'get /signalr/connect <- /signalr/connect?transport=webSockets&connectionToken=abc&connectionData=%5B%7B%22name%22%3A+%22%22%7D%5D&clientProtocol=1.5',
      'get /signalr/start <- /signalr/start?transport=webSockets&connectionToken=abc&connectionData=%5B%7B%22name%22%3A+%22%22%7D%5D&clientProtocol=1.5',
    ]);
    // Granted as the proxy reads an allowlist: a path the catalog does not know is a route of its own.
    const granted = {
      ...block('bazarr', 'radarr'),
      '/signalr/messages': ['get'],
      '/signalr/messages/negotiate': ['post'],
    };
    expect(missingOf(fitOf(client('bazarr'), 'radarr', catalog('radarr'), granted))).toEqual([
      'get /api/v3/history <- /api/v3/history?eventType=1&movieIds=42',
      'get /api/v3/filesystem <- /api/v3/filesystem?path=/movies/&allowFoldersWithoutTrailingSlashes=true&includeFiles=false',
    ]);
  });

  it('applied through overrides, leaves nothing missing or unused, for every client and template', () => {
    for (const { client: c, name, type, block: template } of cases) {
      const before = fitOf(c, type, catalog(type), template);
      const { grants, revokes } = fitChanges(before, {
        grantMissing: true,
        includeSensitive: 'all',
        revoke: before.unused,
      });
      const overrides = overridesWithChanges(template, {}, grants, revokes);
      const after = fitOf(c, type, catalog(type), effectiveAllowlist(template, overrides));
      expect({ name, type, missing: after.missing, unused: after.unused, covered: after.covered }).toEqual({
        name,
        type,
        missing: [],
        unused: [],
        covered: after.calls,
      });
    }
  });

  it('marks each missing call and unused grant with its risk, the schema rule included', () => {
    const fit = fitOf(client('prowlarr'), 'radarr', catalog('radarr'), block('prowlarr', 'radarr'));
    expect(fit.missing.map((m) => [m.method, m.route, m.risk.sensitive, m.risk.destructive, m.risk.purpose])).toEqual([
      ['delete', '/api/v3/indexer/{id}', true, true, 'delete'],
    ]);
    const risks = Object.fromEntries(fit.unused.map((u) => [`${u.method} ${u.route}`, u.risk.sensitive]));
    expect(risks).toEqual({
      'get /api/v3/config/indexer': false,
      'get /api/v3/config/indexer/{id}': false,
      'put /api/v3/config/indexer/{id}': false,
      'post /api/v3/indexer/action/{name}': true,
      'post /api/v3/indexer/testall': true,
      'get /api/v3/indexerflag': false,
    });
    for (const item of [...fit.missing, ...fit.unused]) expect(item.risk.reason).toMatch(/\.$/);
    const maintainerr = fitOf(client('maintainerr'), 'radarr', catalog('radarr'), block('maintainerr', 'radarr'));
    expect(maintainerr.missing.find((m) => m.route === '/api/v3/command')?.risk).toEqual({
      sensitive: true,
      destructive: false,
      purpose: 'system',
      reason: 'Runs server commands (backups, updates, scans and every other task).',
    });
  });

  it('grants the calls that are not sensitive and the sensitive ones named, and revokes exactly the listed unused grants', () => {
    const fit = fitOf(client('prowlarr'), 'radarr', catalog('radarr'), block('prowlarr', 'radarr'));
    // Its one missing call is sensitive: granted only when named (in any parameter name).
    expect(fitChanges(fit, { grantMissing: true })).toEqual({ grants: [], revokes: [] });
    expect(
      fitChanges(fit, {
        grantMissing: true,
        includeSensitive: [{ method: 'delete', route: '/api/v3/indexer/{indexerId}' }],
      }),
    ).toEqual({ grants: [{ path: '/api/v3/indexer/{id}', method: 'delete' }], revokes: [] });
    expect(fitChanges(fit, { grantMissing: false, revoke: fit.unused }).revokes).toHaveLength(6);
    expect(
      fitChanges(fit, { grantMissing: false, revoke: [{ method: 'get', route: '/api/v3/indexerflag' }] }).revokes,
    ).toEqual([{ path: '/api/v3/indexerflag', method: 'get' }]);
    // A named call that is not what the request says it is: refused, naming it.
    const refusal = (options: Parameters<typeof fitChanges>[1]) => {
      try {
        fitChanges(fit, options);
      } catch (error) {
        return error instanceof FitChangeError ? [error.kind, error.message] : error;
      }
      return undefined;
    };
    expect(
      refusal({ grantMissing: true, includeSensitive: [{ method: 'get', route: '/api/v3/indexerflag' }] }),
    ).toEqual([
      'sensitive',
      'GET /api/v3/indexerflag is not a missing sensitive call of this fit: include.sensitive names only those',
    ]);
    expect(refusal({ grantMissing: false, revoke: [{ method: 'get', route: '/api/v3/indexer' }] })).toEqual([
      'unused',
      'GET /api/v3/indexer is not an unused grant of this fit: nothing was revoked',
    ]);
  });

  it('suggests the template file as the community repository writes it', () => {
    const fit = fitOf(client('maintainerr'), 'radarr', catalog('radarr'), block('maintainerr', 'radarr'));
    const text = templateFileText(suggestedBlock(block('maintainerr', 'radarr'), fit, true));
    expect(text).toBe(
      `${[
        '{',
        ...[
          ['/api/v3/command', 'post'],
          ['/api/v3/diskspace', 'get'],
          ['/api/v3/exclusions/bulk', 'post'],
          ['/api/v3/history/movie', 'get'],
          ['/api/v3/movie', 'get'],
          ['/api/v3/movie/editor', 'put'],
          ['/api/v3/movie/{id}', 'delete', 'get', 'put'],
          ['/api/v3/moviefile', 'get'],
          ['/api/v3/moviefile/{id}', 'delete'],
          ['/api/v3/qualityprofile', 'get'],
          ['/api/v3/rootfolder', 'get'],
          ['/api/v3/system/status', 'get'],
          ['/api/v3/tag', 'get', 'post'],
        ].map(
          ([path, ...methods], i, all) =>
            `    "${path}": [\n${methods.map((m) => `        "${m}"`).join(',\n')}\n    ]${i < all.length - 1 ? ',' : ''}`,
        ),
        '}',
      ].join('\n')}\n`,
    );
    // Without includeSensitive, the sensitive calls are left out.
    const safe = suggestedBlock(block('maintainerr', 'radarr'), fit);
    expect(safe['/api/v3/command']).toBeUndefined();
    expect(Object.keys(safe)).toHaveLength(12);
    // Unchanged, a block is written in the format of the community's files.
    const unpackerr = readFileSync(join(TEMPLATE_FIXTURES, 'radarr/unpackerr.json'), 'utf8');
    expect(templateFileText(suggestedBlock(block('unpackerr', 'radarr')))).toBe(`${unpackerr.trimEnd()}\n`);
    // Where the fit changes nothing, byte for byte the repository's file (those written sorted, with a final newline).
    for (const [id, type] of [
      ['cleanuparr', 'radarr'],
      ['cleanuparr', 'sonarr'],
      ['cleanuparr', 'whisparr'],
      ['postarr', 'radarr'],
      ['postarr', 'sonarr'],
    ]) {
      const unchanged = fitOf(client(id), type, catalog(type), block(id, type));
      expect({ id, type, missing: unchanged.missing, unused: unchanged.unused }).toEqual({
        id,
        type,
        missing: [],
        unused: [],
      });
      expect(templateFileText(suggestedBlock(block(id, type), unchanged))).toBe(
        readFileSync(join(TEMPLATE_FIXTURES, type, `${id}.json`), 'utf8'),
      );
    }
    // Unused grants are removed.
    const prowlarr = fitOf(client('prowlarr'), 'sonarr', catalog('sonarr'), block('prowlarr', 'sonarr'));
    expect(Object.keys(suggestedBlock(block('prowlarr', 'sonarr'), prowlarr))).toEqual([
      '/api/v3/indexer',
      '/api/v3/indexer/schema',
      '/api/v3/indexer/test',
      '/api/v3/indexer/{id}',
    ]);
  });
});
