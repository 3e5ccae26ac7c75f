import type { AllowlistMap, EndpointDto, EndpointMethodDto } from '@arrbiter/contracts';
import { CatalogRoute, effectiveAllowlist, HTTP_METHODS, HttpMethod, routeShape } from '@arrbiter/server/catalog';
import { routeRisk } from '@arrbiter/server/permissions';

export interface EndpointQuery {
  /** A substring of the path, any case. */
  search?: string;
  /** A tag, any case. */
  tag?: string;
}

function byShape(map: AllowlistMap): Map<string, { path: string; methods: ReadonlySet<string> }> {
  return new Map(Object.entries(map).map(([path, methods]) => [routeShape(path), { path, methods: new Set(methods) }]));
}

function methodOrder(a: string, b: string): number {
  return HTTP_METHODS.indexOf(a as HttpMethod) - HTTP_METHODS.indexOf(b as HttpMethod);
}

/**
 * The permission catalog of one proxy: every catalog route with, per method, what the template
 * grants, what the override says and the effective result; then the allowlist paths the catalog
 * does not know (flagged), so that they stay visible and editable.
 */
export function buildEndpoints(
  serviceType: string,
  routes: readonly CatalogRoute[],
  template: AllowlistMap,
  overrides: AllowlistMap,
  query: EndpointQuery = {},
): EndpointDto[] {
  const templateByShape = byShape(template);
  const overrideByShape = byShape(overrides);
  const effectiveByShape = byShape(effectiveAllowlist(template, overrides));
  const describe = (path: string, tags: string[], inCatalog: boolean, operations: CatalogRoute['operations']) => {
    const shape = routeShape(path);
    const override = overrideByShape.get(shape);
    const granted = [
      ...(templateByShape.get(shape)?.methods ?? []),
      ...(override?.methods ?? []),
      ...Object.keys(operations),
    ];
    const methods: EndpointMethodDto[] = [...new Set(granted)].sort(methodOrder).map((method) => {
      const summary = operations[method as HttpMethod]?.summary;
      return {
        method,
        template: templateByShape.get(shape)?.methods.has(method) ?? false,
        override: override ? override.methods.has(method) : null,
        effective: effectiveByShape.get(shape)?.methods.has(method) ?? false,
        ...(summary ? { summary } : {}),
        risk: routeRisk(serviceType, undefined, method, { path, operations }),
      };
    });
    const endpoint: EndpointDto = {
      path,
      tags,
      inCatalog,
      // Sensitive when any of its calls is (the catalog's own methods, else a GET).
      sensitive: (methods.length > 0 ? methods.map((m) => m.method) : ['get']).some(
        (method) => routeRisk(serviceType, undefined, method, { path, operations }).sensitive,
      ),
      override: override ? [...override.methods].sort(methodOrder) : null,
      methods,
    };
    return endpoint;
  };

  const items: EndpointDto[] = [];
  const known = new Set<string>();
  for (const route of routes) {
    known.add(routeShape(route.path));
    const tags = [...new Set(Object.values(route.operations).flatMap((op) => op?.tags ?? []))].sort();
    items.push(describe(route.path, tags, true, route.operations));
  }
  const extra = new Map<string, string>();
  for (const path of [...Object.keys(template), ...Object.keys(overrides)]) {
    const shape = routeShape(path);
    if (!known.has(shape) && !extra.has(shape)) extra.set(shape, overrideByShape.get(shape)?.path ?? path);
  }
  for (const path of [...extra.values()].sort()) items.push(describe(path, [], false, {}));

  const search = query.search?.trim().toLowerCase();
  const tag = query.tag?.trim().toLowerCase();
  return items.filter(
    (item) =>
      (!search || item.path.toLowerCase().includes(search)) && (!tag || item.tags.some((t) => t.toLowerCase() === tag)),
  );
}

/** Every tag of a catalog, sorted. */
export function catalogTags(routes: readonly CatalogRoute[]): string[] {
  return [...new Set(routes.flatMap((r) => Object.values(r.operations).flatMap((op) => op?.tags ?? [])))].sort();
}
