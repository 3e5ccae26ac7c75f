import type { CookieOptions } from 'express';
import { AppConfig } from '@arrbiter/server/config';

export const SESSION_COOKIE = 'arrbiter_session';

export function sessionCookieOptions(config: AppConfig): CookieOptions {
  return {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.secureCookies,
    path: '/',
    maxAge: config.sessionMaxSeconds * 1000,
  };
}
