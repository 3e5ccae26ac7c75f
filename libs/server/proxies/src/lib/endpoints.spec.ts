import type { EndpointDto } from '@arrbiter/contracts';
import type { CatalogRoute } from '@arrbiter/server/catalog';
import { buildEndpoints } from './endpoints';

const op = (tag: string) => ({ integerParams: [], tags: [tag] });
const ROUTES: CatalogRoute[] = [
  { path: '/api/v3/movie', operations: { get: op('Movie'), post: op('Movie') } },
  { path: '/api/v3/movie/{id}', operations: { get: op('Movie'), delete: op('Movie') } },
  { path: '/api/v3/config/host', operations: { get: op('HostConfig') } },
];

describe('the permission catalog', () => {
  it('describes template, override and effective per method; [] denies; unknown paths are flagged', () => {
    const items = buildEndpoints(
      'radarr',
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
    const withoutRisk = (methods: EndpointDto['methods']) => methods.map(({ risk: _risk, ...m }) => m);
    expect(withoutRisk(byId.methods)).toEqual([
      { method: 'get', template: true, override: false, effective: false },
      { method: 'delete', template: false, override: false, effective: false },
    ]);
    expect(withoutRisk(items[3].methods)).toEqual([
      { method: 'post', template: false, override: true, effective: true },
    ]);
    expect(withoutRisk(items[4].methods)).toEqual([{ method: 'get', template: true, override: null, effective: true }]);
  });

  it('filters by path substring and tag, in any case', () => {
    expect(buildEndpoints('radarr', ROUTES, {}, {}, { search: 'MOVIE/{' }).map((i) => i.path)).toEqual([
      '/api/v3/movie/{id}',
    ]);
    expect(buildEndpoints('radarr', ROUTES, {}, {}, { tag: 'hostconfig' }).map((i) => i.path)).toEqual([
      '/api/v3/config/host',
    ]);
  });

  it('marks a path sensitive through routeRisk: v5 names and secret fields in the catalog route’s schemas', () => {
    const v5: CatalogRoute[] = [
      { path: '/api/v5/series', operations: { get: op('Series') } },
      { path: '/api/v5/settings/general', operations: { get: op('GeneralSettings') } },
      { path: '/api/v5/connection/{id}', operations: { get: op('Connection'), delete: op('Connection') } },
      { path: '/api/v5/settings/secure', operations: { get: { ...op('Secure'), secretFields: ['apiKey'] } } },
    ];
    const items = buildEndpoints('sonarr', v5, {}, { '/api/v5/settings/update': ['get'] });
    expect(Object.fromEntries(items.map((i) => [i.path, i.sensitive]))).toEqual({
      '/api/v5/series': false,
      '/api/v5/settings/general': true,
      '/api/v5/connection/{id}': true,
      '/api/v5/settings/secure': true,
      '/api/v5/settings/update': true,
    });
  });

  it('gives each method its risk, as every other place that offers a grant does', () => {
    const items = buildEndpoints('radarr', ROUTES, {}, {});
    const risk = (path: string, method: string) =>
      items.find((i) => i.path === path)?.methods.find((m) => m.method === method)?.risk;
    expect(risk('/api/v3/movie/{id}', 'delete')).toMatchObject({ sensitive: false, destructive: true });
    expect(risk('/api/v3/movie/{id}', 'get')).toMatchObject({ sensitive: false, destructive: false });
    expect(risk('/api/v3/config/host', 'get')).toMatchObject({ sensitive: true });
    expect(risk('/api/v3/config/host', 'get')?.reason).toMatch(/\w/);
  });
});
