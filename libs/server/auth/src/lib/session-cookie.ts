import type { CookieOptions } from 'express';
import { AppConfig, ExternalRequest, ExternalUrls } from '@arrbiter/server/config';

export const SESSION_COOKIE = 'arrbiter_session';

/**
 * The session cookie: host-only (no `Domain`), `Secure` when `PUBLIC_URL` is https or, with it unset,
 * when the request came over https; its `Path` is where the server lives (`/`, or `PUBLIC_URL`'s path).
 */
export function sessionCookieOptions(config: AppConfig, urls: ExternalUrls, request: ExternalRequest): CookieOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    secure: urls.secure(request),
    path: urls.cookiePath(request),
    maxAge: config.sessionMaxSeconds * 1000,
  };
}
