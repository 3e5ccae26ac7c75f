import { AppConfig, publicPrefixOf } from '@arrbiter/server/config';
import { SecretBox } from '@arrbiter/server/crypto';
import type { CookieOptions, Request, Response } from 'express';

/** The cookie that carries a sign-in's PKCE verifier, state and nonce from the login to the callback. */
export const OIDC_STATE_COOKIE = 'arrbiter_oidc';
const PURPOSE = 'oidc-state';
/** How long a sign-in at the provider may take. */
const LIFETIME_MS = 10 * 60_000;

function cookieOptions(config: AppConfig): CookieOptions {
  // Lax: the provider sends the browser back with a top-level GET, which carries it.
  // Single sign-on needs PUBLIC_URL: its path (a sub-path) is where the browser sends the cookie back.
  return {
    httpOnly: true,
    sameSite: 'lax',
    secure: config.secureCookies,
    path: `${publicPrefixOf(config)}/api/auth/oidc`,
  };
}

/** Drops a `Set-Cookie` of the state cookie this answer already has: the last write is the one sent. */
function replacingEarlier(response: Response): void {
  const previous = response.getHeader?.('Set-Cookie');
  if (!Array.isArray(previous)) return;
  const others = previous.filter((line) => !line.startsWith(`${OIDC_STATE_COOKIE}=`));
  if (others.length !== previous.length) response.setHeader('Set-Cookie', others);
}

/**
 * What openid-client's Passport strategy keeps in `req.session` between the redirect to the provider
 * and the callback, kept instead in a short-lived cookie encrypted and authenticated under
 * `SECRET_KEY` (AES-GCM): no server-side session store, and any replica can finish a sign-in another
 * began. Writing a key sets the cookie; deleting it (the strategy does, at the callback, so that a
 * callback works once) clears it.
 */
export function cookieSession(
  request: Request,
  response: Response,
  box: SecretBox,
  config: AppConfig,
  now = Date.now(),
): Record<string, unknown> {
  const state: Record<string, unknown> = {};
  const raw: unknown = request.cookies?.[OIDC_STATE_COOKIE];
  if (typeof raw === 'string' && raw.length < 4096) {
    try {
      const { values, expires } = JSON.parse(box.decrypt(raw, PURPOSE)) as { values: unknown; expires: number };
      if (expires > now && values && typeof values === 'object') Object.assign(state, values);
    } catch {
      // Altered, expired key, another server's: no state, and the callback fails as it should.
    }
  }
  return new Proxy(state, {
    set(target, key, value) {
      target[key as string] = value;
      const sealed = box.encrypt(JSON.stringify({ values: target, expires: now + LIFETIME_MS }), PURPOSE);
      replacingEarlier(response);
      response.cookie(OIDC_STATE_COOKIE, sealed, { ...cookieOptions(config), maxAge: LIFETIME_MS });
      return true;
    },
    deleteProperty(target, key) {
      delete target[key as string];
      replacingEarlier(response);
      response.clearCookie(OIDC_STATE_COOKIE, cookieOptions(config));
      return true;
    },
  });
}
