/** A claim by its name, or else by a dotted path into nested claims (`resource_access.arrbiter.roles`). */
function claim(claims: Record<string, unknown>, name: string): unknown {
  if (name in claims) return claims[name];
  let current: unknown = claims;
  for (const part of name.split('.')) {
    if (!current || typeof current !== 'object' || !(part in current)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/** The role claim's values: a string, or the strings of an array (anything else counts as none). */
export function roleClaimValues(claims: Record<string, unknown>, name: string): string[] {
  const value = claim(claims, name);
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return [];
}

/**
 * The username the provider names: `preferred_username`, else `email` when the provider says it
 * verified it (`email_verified: true`; an unverified address is anyone's to type), lower-cased.
 */
export function ssoUsername(claims: Record<string, unknown>): string | undefined {
  for (const name of ['preferred_username', 'email']) {
    if (name === 'email' && claims['email_verified'] !== true) continue;
    const value = claims[name];
    if (typeof value === 'string' && value.trim() !== '') return value.trim().toLowerCase();
  }
  return undefined;
}
