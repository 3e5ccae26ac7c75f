import { SYSTEM_ACTOR } from '@arrbiter/server/history';

/**
 * Names no account may have, however it would come (the admin API, ADMIN_USERNAME, single sign-on,
 * forward-auth): `system` is the actor of what the server does by itself (CONFIG_FILE, schedules, the
 * CLI), and an account of that name would pass its changes off as the server's.
 */
export const RESERVED_USERNAMES: readonly string[] = [SYSTEM_ACTOR];

export const RESERVED_USERNAME_MESSAGE = `username "${SYSTEM_ACTOR}" is reserved: it names what the server does by itself (CONFIG_FILE, schedules, the CLI)`;

/** Whether `username` (any case) is reserved. */
export function isReservedUsername(username: string): boolean {
  return RESERVED_USERNAMES.includes(username.toLowerCase());
}
