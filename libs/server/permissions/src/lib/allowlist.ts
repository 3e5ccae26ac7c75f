import { BadRequestException } from '@nestjs/common';
import type { AllowlistMap, AllowlistResponse, Grant, RevisionDiffResponse } from '@arrbiter/contracts';
import {
  diffGrants,
  effectiveAllowlist,
  overrideProblems,
  overridesFor,
  reviseAllowlist,
  withGrants,
} from '@arrbiter/shared/allowlist-rules';

/**
 * A proxy's allowlist semantics on the server, built on the rules the dashboard shares
 * (`@arrbiter/shared/allowlist-rules`): overrides over the app's template block, grants added on top
 * of the effective allowlist, and what restoring a revision would change.
 */

/** Methods sorted, paths in a stable order: equal configurations store equal JSON. */
export function normaliseOverrides(overrides: AllowlistMap): AllowlistMap {
  return Object.fromEntries(
    Object.entries(overrides)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([path, methods]) => [path, [...new Set(methods)].sort()]),
  );
}

/** Overrides an admin sent, normalised; 400 with every problem when any path or method is not valid. */
export function checkedOverrides(overrides: AllowlistMap): AllowlistMap {
  const problems = overrideProblems(overrides);
  if (problems.length > 0) throw new BadRequestException(problems);
  return normaliseOverrides(overrides);
}

/** The template block, the overrides and the effective allowlist they make. */
export function allowlistOf(template: AllowlistMap, overrides: AllowlistMap): AllowlistResponse {
  return { template, overrides, effective: effectiveAllowlist(template, overrides) };
}

/** The overrides that add `grants` on top of the effective allowlist (nothing the template grants is lost). */
export function overridesWithGrants(
  template: AllowlistMap,
  overrides: AllowlistMap,
  grants: readonly Grant[],
): AllowlistMap {
  return normaliseOverrides(withGrants(template, overrides, grants));
}

/**
 * The overrides that add `grants` to the effective allowlist and take `revokes` away: a revoked grant
 * of the template becomes an override that leaves its method out (`[]` when none is left), a revoked
 * grant of the overrides leaves them; normalised.
 */
export function overridesWithChanges(
  template: AllowlistMap,
  overrides: AllowlistMap,
  grants: readonly Grant[],
  revokes: readonly Grant[],
): AllowlistMap {
  const wanted = reviseAllowlist(effectiveAllowlist(template, overrides), grants, revokes);
  return normaliseOverrides(overridesFor(template, overrides, wanted));
}

/** What restoring overrides (a revision's) over the current template would change. */
export function restoreDiff(
  template: AllowlistMap,
  current: { overrides: AllowlistMap; active: boolean },
  restoredOverrides: AllowlistMap,
): Omit<RevisionDiffResponse, 'revision'> {
  const effective = effectiveAllowlist(template, current.overrides);
  const restored = effectiveAllowlist(template, restoredOverrides);
  return {
    current: { overrides: current.overrides, active: current.active, effective },
    restored,
    ...diffGrants(effective, restored),
  };
}
