import { RiskRoute, routeRisk } from './route-risk';

/** The longest a proxy may stay in learning mode. */
export const MAX_LEARNING_MS = 7 * 24 * 60 * 60 * 1000;

/** Why `until` cannot end a learning period that starts at `now` (ms), or undefined when it can. */
export function learningDeadlineProblem(until: Date, now: number): string | undefined {
  if (Number.isNaN(until.getTime())) return 'until must be an ISO 8601 time';
  if (until.getTime() <= now) return 'until must be in the future';
  if (until.getTime() > now + MAX_LEARNING_MS) return 'until must be at most 7 days ahead';
  return undefined;
}

/** Where Servarr serves its API and its calendar feeds: the only places learning mode forwards to. */
const LEARNABLE = /^\/(api|feed)\//;

/**
 * Whether learning mode may forward `method` on `path` (a canonical request path) that the allowlist
 * refuses, for a service of `serviceType`: only under `/api` and `/feed`, and never a sensitive call
 * (`routeRisk`), judged on the request path and on the route it resolved to (with that route's schema
 * rule), if any.
 */
export function mayLearn(serviceType: string, method: string, path: string, route?: RiskRoute): boolean {
  return (
    LEARNABLE.test(path.toLowerCase()) &&
    !routeRisk(serviceType, undefined, method, path).sensitive &&
    (route === undefined || !routeRisk(serviceType, undefined, method, route).sensitive)
  );
}
