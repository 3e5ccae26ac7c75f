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
