import { routeShape } from '@arrbiter/shared/allowlist-rules';
import { CatalogRoute } from './openapi';

/** The union of several descriptions' routes (a service's API versions): by route shape, methods merged. */
export function mergeCatalogs(catalogs: readonly CatalogRoute[][]): CatalogRoute[] {
  const byShape = new Map<string, CatalogRoute>();
  for (const catalog of catalogs) {
    for (const route of catalog) {
      const shape = routeShape(route.path);
      const known = byShape.get(shape);
      if (!known) byShape.set(shape, { path: route.path, operations: { ...route.operations } });
      else known.operations = { ...route.operations, ...known.operations };
    }
  }
  return [...byShape.values()].sort((a, b) => a.path.localeCompare(b.path));
}
