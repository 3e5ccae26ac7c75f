import { SetMetadata } from '@nestjs/common';
import type { AdminRole } from '@arrbiter/contracts';

export const MIN_ROLE = 'arrbiter:min-role';
export const SESSION_ONLY = 'arrbiter:session-only';

/**
 * The least role that may call the route. Every handler that is not `@Public()` must name one:
 * `RolesGuard` refuses a handler without it to everyone. On handlers only: a controller-wide role
 * would silently open routes added to it later.
 */
export const MinRole = (role: AdminRole): MethodDecorator => SetMetadata(MIN_ROLE, role);

/** Reads: every role (viewers see everything but secrets). */
export const ReadAccess = (): MethodDecorator => MinRole('viewer');

/** Configuration writes (and secrets such as proxy keys): editors and owners. */
export const EditAccess = (): MethodDecorator => MinRole('editor');

/** Accounts and server-wide settings: owners only. */
export const OwnerAccess = (): MethodDecorator => MinRole('owner');

/** Not for API tokens: accounts and tokens are managed by a person signed in. Combine with a role. */
export const SessionOnly = (): MethodDecorator => SetMetadata(SESSION_ONLY, true);
