import type { CatalogRoute } from '@arrbiter/server/catalog';
import { buildEndpoints, isSensitive, mayLearn } from './endpoints';

const op = (tag: string) => ({ integerParams: [], tags: [tag] });
const ROUTES: CatalogRoute[] = [
  { path: '/api/v3/movie', operations: { get: op('Movie'), post: op('Movie') } },
  { path: '/api/v3/movie/{id}', operations: { get: op('Movie'), delete: op('Movie') } },
  { path: '/api/v3/config/host', operations: { get: op('HostConfig') } },
];

describe('the permission catalog', () => {
  it('marks endpoints that expose secrets or control the server', () => {
    for (const path of [
      '/api/v3/config/host',
      '/api/v1/system/backup/restore',
      '/api/v3/downloadclient/{id}',
      '/api/v1/indexer',
    ])
      expect(isSensitive(path)).toBe(true);
    for (const path of ['/api/v3/movie', '/api/v3/config/ui', '/api/v3/system/status', '/api/v3/calendar'])
      expect(isSensitive(path)).toBe(false);
  });

  it('lets learning mode forward only the API and feeds, never what hands out secrets', () => {
    for (const path of ['/api/v3/movie/5', '/API/V3/History', '/feed/v3/calendar/radarr.ics', '/api/v3/movie/{id}'])
      expect([path, mayLearn(path)]).toEqual([path, true]);
    for (const path of [
      '/initialize.json',
      '/initialize.js',
      '/Initialize.JSON',
      '/backup/radarr_backup.zip',
      '/logfile/radarr.txt',
      '/signalr/messages/negotiate',
      '/',
      '/login',
      '/api',
      '/apiv3/movie',
      '/api/v3/config/host',
      '/api/v3/system/shutdown',
    ])
      expect([path, mayLearn(path)]).toEqual([path, false]);
    for (const path of ['/initialize.json', '/backup/x.zip', '/logfile/radarr.txt', '/signalr/messages'])
      expect([path, isSensitive(path)]).toEqual([path, true]);
  });

  it('describes template, override and effective per method; [] denies; unknown paths are flagged', () => {
    const items = buildEndpoints(
      ROUTES,
      { '/api/v3/movie': ['get'], '/api/v3/movie/{id}': ['get'], '/api/v3/legacy': ['get'] },
      { '/api/v3/Movie/{movieId}': [], '/api/v3/custom': ['post'] },
    );
    expect(items.map((i) => [i.path, i.inCatalog])).toEqual([
      ['/api/v3/movie', true],
      ['/api/v3/movie/{id}', true],
      ['/api/v3/config/host', true],
      ['/api/v3/custom', false],
      ['/api/v3/legacy', false],
    ]);
    const byId = items[1];
    expect(byId.override).toEqual([]);
    expect(byId.methods).toEqual([
      { method: 'get', template: true, override: false, effective: false },
      { method: 'delete', template: false, override: false, effective: false },
    ]);
    expect(items[3].methods).toEqual([{ method: 'post', template: false, override: true, effective: true }]);
    expect(items[4].methods).toEqual([{ method: 'get', template: true, override: null, effective: true }]);
  });

  it('filters by path substring and tag, in any case', () => {
    expect(buildEndpoints(ROUTES, {}, {}, { search: 'MOVIE/{' }).map((i) => i.path)).toEqual(['/api/v3/movie/{id}']);
    expect(buildEndpoints(ROUTES, {}, {}, { tag: 'hostconfig' }).map((i) => i.path)).toEqual(['/api/v3/config/host']);
  });
});
