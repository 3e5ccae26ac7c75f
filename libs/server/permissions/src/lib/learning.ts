import { isSensitive } from './sensitive-paths';

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

/** Whether learning mode may forward a request for `path` (a request path or a route) that the allowlist refuses. */
export function mayLearn(path: string): boolean {
  return LEARNABLE.test(path.toLowerCase()) && !isSensitive(path);
}
