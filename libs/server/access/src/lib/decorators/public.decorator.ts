import { applyDecorators, SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'arrbiter:public';
export const SKIP_ORIGIN_CHECK = 'arrbiter:skip-origin-check';
export const SIGN_IN_OPTIONAL = 'arrbiter:sign-in-optional';

/** The route needs no admin session (sign-in, health, the proxy route with its own guard). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);

/** Writes on this route are not browser admin writes (the proxy route): no Origin check. */
export const SkipOriginCheck = (): MethodDecorator & ClassDecorator => SetMetadata(SKIP_ORIGIN_CHECK, true);

/**
 * Public, but the caller's session (token, forward-auth identity, cookie) is read when there is one
 * (`request.admin`); none, or one that no longer works, is no error (`GET /api/auth/state`).
 */
export const SignInOptional = (): MethodDecorator =>
  applyDecorators(SetMetadata(IS_PUBLIC, true), SetMetadata(SIGN_IN_OPTIONAL, true));
