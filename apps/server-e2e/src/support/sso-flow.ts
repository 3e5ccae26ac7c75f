/** Cookies per origin, as a browser keeps them across redirects (enough for these flows: no paths). */
export class CookieJar {
  private readonly byOrigin = new Map<string, Map<string, string>>();

  store(url: string, response: Response): void {
    const origin = new URL(url).origin;
    const cookies = this.byOrigin.get(origin) ?? new Map<string, string>();
    this.byOrigin.set(origin, cookies);
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair.indexOf('=');
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line) || /max-age=0\b/i.test(line)) cookies.delete(name);
      else cookies.set(name, value);
    }
  }

  header(url: string): string {
    const cookies = this.byOrigin.get(new URL(url).origin) ?? new Map<string, string>();
    return [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  get(url: string, name: string): string | undefined {
    return this.byOrigin.get(new URL(url).origin)?.get(name);
  }

  set(url: string, name: string, value: string): void {
    const origin = new URL(url).origin;
    const cookies = this.byOrigin.get(origin) ?? new Map<string, string>();
    cookies.set(name, value);
    this.byOrigin.set(origin, cookies);
  }
}

/** One request, redirects not followed, cookies kept in the jar. */
export async function step(jar: CookieJar, url: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  const cookie = jar.header(url);
  if (cookie) headers.set('cookie', cookie);
  const response = await fetch(url, { ...init, headers, redirect: 'manual' });
  jar.store(url, response);
  return response;
}

function location(response: Response, base: string): string {
  const value = response.headers.get('location');
  if (!value) throw new Error(`expected a redirect from ${base}, got ${response.status}`);
  return new URL(value, base).href;
}

export interface SsoFlow {
  jar: CookieJar;
  /** The authorization request Arrbiter sent the browser to. */
  authorizationUrl: URL;
  /** The provider's redirect back to Arrbiter (code, state, iss). */
  callbackUrl: URL;
  /** Arrbiter's state cookie as it was when the browser came back (to replay a callback with it). */
  stateCookie: string | undefined;
}

/**
 * Signs `login` in at the provider the way a browser would: Arrbiter's login route, the provider's
 * development login form, its redirect back. Stops before the callback, which the test makes itself.
 */
export async function signInAtProvider(serverUrl: string, login: string): Promise<SsoFlow> {
  const jar = new CookieJar();
  const start = await step(jar, `${serverUrl}/api/auth/oidc/login`);
  if (start.status !== 302) throw new Error(`the login route answered ${start.status}`);
  return continueAtProvider(jar, serverUrl, new URL(location(start, serverUrl)), login);
}

/**
 * The provider's half of a flow Arrbiter began (its state cookie in `jar`, the browser sent to
 * `authorizationUrl`): `login` signs in at the provider, which redirects back. Stops before the callback.
 */
export async function continueAtProvider(
  jar: CookieJar,
  serverUrl: string,
  authorizationUrl: URL,
  login: string,
): Promise<SsoFlow> {
  const stateCookie = jar.get(serverUrl, 'arrbiter_oidc');
  const toInteraction = await step(jar, authorizationUrl.href);
  const interaction = location(toInteraction, authorizationUrl.href);
  const form = await step(jar, interaction);
  if (form.status !== 200) throw new Error(`the provider's login form answered ${form.status}`);
  await form.text();
  const submitted = await step(jar, interaction, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ prompt: 'login', login, password: 'any password' }).toString(),
  });
  let next = location(submitted, interaction);
  // The provider resumes the authorization, then redirects back to Arrbiter's callback.
  for (let hops = 0; hops < 5 && !next.startsWith(serverUrl); hops += 1) {
    next = location(await step(jar, next), next);
  }
  if (!next.startsWith(serverUrl)) throw new Error(`the provider did not send the browser back: ${next}`);
  return { jar, authorizationUrl, callbackUrl: new URL(next), stateCookie };
}
