import type { AdminRole } from '@arrbiter/contracts';

const RANK: Record<AdminRole, number> = { viewer: 1, editor: 2, owner: 3 };

/** Whether `role` may do what `required` may. */
export function hasRole(role: AdminRole, required: AdminRole): boolean {
  return RANK[role] >= RANK[required];
}

/** The less powerful of two roles (a token's role under its creator's). */
export function lowerRole(a: AdminRole, b: AdminRole): AdminRole {
  return RANK[a] <= RANK[b] ? a : b;
}

/** The most powerful of some roles, or undefined for none. */
export function highestRole(roles: Iterable<AdminRole>): AdminRole | undefined {
  let best: AdminRole | undefined;
  for (const role of roles) if (best === undefined || RANK[role] > RANK[best]) best = role;
  return best;
}
