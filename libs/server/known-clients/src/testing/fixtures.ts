import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CatalogRoute, mergeCatalogs, parseOpenApi, RouteMatcher } from '@arrbiter/server/catalog';

/** The real OpenAPI descriptions and community templates, beside the repository (`../shared`), as in CI. */
export const SHARED_FIXTURES = resolve(__dirname, '../../../../../../shared/fixtures');
export const OPENAPI_FIXTURES = join(SHARED_FIXTURES, 'openapi');
export const TEMPLATE_FIXTURES = join(SHARED_FIXTURES, 'template-repo');

if (!existsSync(OPENAPI_FIXTURES) || !existsSync(TEMPLATE_FIXTURES)) {
  throw new Error(
    `The shared fixtures are missing: expected ${OPENAPI_FIXTURES} and ${TEMPLATE_FIXTURES} beside the repository`,
  );
}

export function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8'));
}

/** A service type's routes over every fixture version of it (`radarr-v3.json`…), as the server merges them. */
export function fixtureRoutes(type: string): CatalogRoute[] {
  const files = readdirSync(OPENAPI_FIXTURES).filter((f) => f.startsWith(`${type}-v`) && f.endsWith('.json'));
  return mergeCatalogs(files.map((f) => parseOpenApi(readJson(join(OPENAPI_FIXTURES, f)))));
}

/** The route table the proxy builds for a service serving every fixture version of its type. */
export function fixtureCatalog(type: string): RouteMatcher {
  return new RouteMatcher(fixtureRoutes(type));
}
