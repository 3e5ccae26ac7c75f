export * from './lib/canonical-path';
export * from './lib/catalog';
export * from './lib/compiled-allowlist';
export * from './lib/openapi';
export * from './lib/route-matcher';
export * from './lib/route-path';
export * from './lib/catalog.module';
export * from './lib/catalog.service';
// The allowlist rules moved to the lib the dashboard shares; re-exported for the server's existing imports.
export type { AllowlistMap } from '@arrbiter/contracts';
export {
  diffGrants,
  effectiveAllowlist,
  grantsOf,
  HTTP_METHODS,
  isHttpMethod,
  isRoutePath,
  MAX_OVERRIDE_PATHS,
  MAX_ROUTE_PATH_LENGTH,
  MAX_SEGMENT_PARAMS,
  overrideProblems,
  routeShape,
  routeTemplateProblem,
  withGrants,
} from '@arrbiter/shared/allowlist-rules';
export type { HttpMethod } from '@arrbiter/shared/allowlist-rules';
