import type { AppConfig } from '@arrbiter/server/config';
import { SecretBox } from '@arrbiter/server/crypto';
import type { CookieOptions, Request, Response } from 'express';
import { cookieSession, OIDC_STATE_COOKIE } from './oidc-state';

const config = { secretKey: Buffer.alloc(32, 7), secureCookies: true } as unknown as AppConfig;
const box = new SecretBox(config);

/** A response that records the cookies set and cleared. */
function fakeResponse() {
  const jar: { set?: { value: string; options: CookieOptions }; cleared?: CookieOptions } = {};
  const response = {
    cookie: (_name: string, value: string, options: CookieOptions) => (jar.set = { value, options }),
    clearCookie: (_name: string, options: CookieOptions) => (jar.cleared = options),
  } as unknown as Response;
  return { response, jar };
}

const requestWith = (cookie?: string) => ({ cookies: cookie ? { [OIDC_STATE_COOKIE]: cookie } : {} }) as Request;

describe(cookieSession.name, () => {
  it('seals what the strategy stores into a short-lived, HttpOnly cookie, and reads it back at the callback', () => {
    const login = fakeResponse();
    const session = cookieSession(requestWith(), login.response, box, config, 1_000);
    session['oidc'] = { code_verifier: 'v', state: 's', nonce: 'n' };
    expect(login.jar.set?.options).toMatchObject({
      httpOnly: true,
      sameSite: 'lax',
      secure: true,
      path: '/api/auth/oidc',
      maxAge: 600_000,
    });
    expect(login.jar.set?.value).not.toContain('code_verifier');

    const callback = fakeResponse();
    const back = cookieSession(requestWith(login.jar.set?.value), callback.response, box, config, 2_000);
    expect(back['oidc']).toEqual({ code_verifier: 'v', state: 's', nonce: 'n' });
    delete back['oidc'];
    expect(callback.jar.cleared).toMatchObject({ path: '/api/auth/oidc' });
  });

  it('reads nothing from an expired, altered or foreign cookie', () => {
    const login = fakeResponse();
    cookieSession(requestWith(), login.response, box, config, 1_000)['oidc'] = { code_verifier: 'v' };
    const sealed = login.jar.set?.value as string;
    const { response } = fakeResponse();
    expect(cookieSession(requestWith(sealed), response, box, config, 1_000 + 600_001)['oidc']).toBeUndefined();
    // One character in the middle changed (the last ones may carry bits the decoding ignores, or be
    // replaced by what was there).
    const middle = Math.floor(sealed.length / 2);
    const altered = `${sealed.slice(0, middle)}${sealed[middle] === 'A' ? 'B' : 'A'}${sealed.slice(middle + 1)}`;
    expect(altered).not.toBe(sealed);
    expect(cookieSession(requestWith(altered), response, box, config, 2_000)['oidc']).toBeUndefined();
    const other = new SecretBox({ secretKey: Buffer.alloc(32, 9) } as unknown as AppConfig);
    expect(cookieSession(requestWith(sealed), response, other, config, 2_000)['oidc']).toBeUndefined();
  });
});
