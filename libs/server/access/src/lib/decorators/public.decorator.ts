import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'arrbiter:public';
export const SKIP_ORIGIN_CHECK = 'arrbiter:skip-origin-check';

/** The route needs no admin session (sign-in, health, the proxy route with its own guard). */
export const Public = (): MethodDecorator & ClassDecorator => SetMetadata(IS_PUBLIC, true);

/** Writes on this route are not browser admin writes (the proxy route): no Origin check. */
export const SkipOriginCheck = (): MethodDecorator & ClassDecorator => SetMetadata(SKIP_ORIGIN_CHECK, true);
