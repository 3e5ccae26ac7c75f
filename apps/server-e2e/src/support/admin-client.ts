import type { ServerProcess } from './server-process';

/** Admin API calls over HTTP as the dashboard makes them (session cookie, Origin of PUBLIC_URL). */
export class AdminHttpClient {
  private constructor(
    private readonly server: ServerProcess,
    private readonly cookie: string,
  ) {}

  /** The default PUBLIC_URL's origin, which admin writes must come from. */
  static origin(server: ServerProcess): string {
    return `http://localhost:${server.port}`;
  }

  static async signIn(server: ServerProcess, username: string, password: string): Promise<AdminHttpClient> {
    const response = await fetch(`${server.url}/api/auth/sign-in`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: AdminHttpClient.origin(server) },
      body: JSON.stringify({ username, password }),
    });
    if (response.status !== 200) throw new Error(`sign-in answered ${response.status}: ${await response.text()}`);
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith('arrbiter_session='));
    if (!cookie) throw new Error('no session cookie');
    return new AdminHttpClient(server, cookie.split(';')[0]);
  }

  /** The `Cookie` header of this session, for calls made by hand (to read a status the client refuses). */
  get cookieHeader(): string {
    return this.cookie;
  }

  async request<T>(method: string, path: string, body?: unknown, expected = [200, 201, 204]): Promise<T> {
    const response = await fetch(`${this.server.url}${path}`, {
      method,
      headers: { cookie: this.cookie, origin: AdminHttpClient.origin(this.server), 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!expected.includes(response.status)) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
    return (text ? JSON.parse(text) : undefined) as T;
  }
}
