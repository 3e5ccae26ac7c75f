import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ProxyConnectionDto, ProxyDetailsDto } from '@arrbiter/contracts';
import { Logger } from '@nestjs/common';
import { ConfigError, loadConfig } from '@arrbiter/server/config';
import request from 'supertest';
import { proxiedUpstream, ProxiedUpstream } from '../testing/proxied-upstream';
import { AdminClient, startTestApp, TEST_ADMIN, TestApp } from '../testing/test-app';

/** The `Set-Cookie` line of the session cookie. */
function sessionCookie(response: request.Response): string {
  const lines = ([] as string[]).concat(response.headers['set-cookie'] ?? []);
  const line = lines.find((l) => l.startsWith('arrbiter_session='));
  if (!line) throw new Error(`no session cookie in ${JSON.stringify(lines)}`);
  return line;
}

/** An admin client whose requests all carry `headers` (a Host, forwarded headers, an Origin). */
async function adminFrom(t: TestApp, headers: Record<string, string>): Promise<AdminClient> {
  const signIn = await request(t.app.getHttpServer()).post('/api/auth/sign-in').set(headers).send(TEST_ADMIN);
  expect(signIn.status).toBe(200);
  const cookie = sessionCookie(signIn).split(';')[0];
  const server = t.app.getHttpServer();
  return {
    get: (path) => request(server).get(path).set(headers).set('Cookie', cookie),
    post: (path, body = {}) => request(server).post(path).set(headers).set('Cookie', cookie).send(body),
    put: (path, body = {}) => request(server).put(path).set(headers).set('Cookie', cookie).send(body),
    patch: (path, body = {}) => request(server).patch(path).set(headers).set('Cookie', cookie).send(body),
    delete: (path) => request(server).delete(path).set(headers).set('Cookie', cookie),
  };
}

/** PUBLIC_URL unset: the first sign-in works at any address (its own origin); other origins stay refused. */
describe('the external URL (PUBLIC_URL set or not)', () => {
  describe('with PUBLIC_URL unset', () => {
    let t: TestApp;
    let setup: ProxiedUpstream;
    const NAS = { Host: 'nas:18080', Origin: 'http://nas:18080' };
    const signIn = (headers: Record<string, string>) =>
      request(t.app.getHttpServer()).post('/api/auth/sign-in').set(headers).send(TEST_ADMIN);

    const warnings: string[] = [];

    beforeAll(async () => {
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
        warnings.push(String(message));
      });
      try {
        t = await startTestApp({ PUBLIC_URL: '' });
      } finally {
        warn.mockRestore();
      }
      setup = await proxiedUpstream(await adminFrom(t, NAS), 'movies', 'Movies', { '/api/v3/movie': ['get'] });
      await (
        await adminFrom(t, NAS)
      )
        .put(`/api/admin/v1/proxies/${setup.proxy.id}/config`, {
          overrides: { '/api/v3/movie': ['get'] },
          active: true,
          scrub: true,
        })
        .expect(200);
    });
    afterAll(async () => {
      await setup?.upstream.stop();
      await t?.close();
    });

    it('says once at start-up that PUBLIC_URL is unset and what that affects', () => {
      const notices = warnings.filter((line) => line.includes('PUBLIC_URL is unset'));
      expect(notices).toHaveLength(1);
      expect(notices[0]).toMatch(/proxy URLs shown to admins/);
      expect(notices[0]).toMatch(/Secure/);
      expect(notices[0]).toMatch(/same-origin/);
    });

    it("signs in from the request's own origin (http://nas:18080) with a host-only, non-Secure cookie", async () => {
      const response = await signIn(NAS).expect(200);
      expect(response.body).toEqual({
        username: 'admin',
        role: 'owner',
        publicUrlSet: false,
        passwordGenerated: false,
      });
      const cookie = sessionCookie(response);
      expect(cookie).not.toMatch(/Domain=/i);
      expect(cookie).not.toMatch(/Secure/);
      expect(cookie).toMatch(/Path=\/;/);
    });

    it('accepts a Referer of the same origin when there is no Origin', async () => {
      await signIn({ Host: 'nas:18080', Referer: 'http://nas:18080/sign-in' }).expect(200);
    });

    it('tells a signed-in admin that PUBLIC_URL is unset', async () => {
      const admin = await adminFrom(t, NAS);
      await admin
        .get('/api/auth/session')
        .expect(200, { username: 'admin', role: 'owner', publicUrlSet: false, passwordGenerated: false });
    });

    it('refuses a write from another origin with a 403 naming PUBLIC_URL and ALLOWED_ORIGINS', async () => {
      const response = await signIn({ Host: 'nas:18080', Origin: 'http://evil.example' }).expect(403);
      expect(response.body.message).toMatch(/Origin http:\/\/evil\.example is not allowed/);
      expect(response.body.message).toMatch(/PUBLIC_URL/);
      expect(response.body.message).toMatch(/ALLOWED_ORIGINS/);
      // Another port of the same host is another origin.
      await signIn({ Host: 'nas:18080', Origin: 'http://nas:18081' }).expect(403);
    });

    it('refuses Origin: null', async () => {
      await signIn({ Host: 'nas:18080', Origin: 'null' }).expect(403);
    });

    it('names TRUST_PROXY when only the scheme differs (TLS ended by a proxy it does not trust)', async () => {
      const response = await signIn({ Host: 'nas:18080', Origin: 'https://nas:18080' }).expect(403);
      expect(response.body.message).toMatch(/TRUST_PROXY/);
      expect(response.body.message).toMatch(/PUBLIC_URL/);
    });

    it('ignores the forwarded headers of a peer TRUST_PROXY does not name', async () => {
      const forged = { 'X-Forwarded-Host': 'evil.example', 'X-Forwarded-Proto': 'https' };
      await signIn({ ...NAS, ...forged, Origin: 'https://evil.example' }).expect(403);
      const response = await signIn({ ...NAS, ...forged }).expect(200);
      expect(sessionCookie(response)).not.toMatch(/Secure/);
    });

    it('shows proxy URLs at the address the dashboard was opened at', async () => {
      const admin = await adminFrom(t, NAS);
      const details = (await admin.get(`/api/admin/v1/proxies/${setup.proxy.id}`).expect(200)).body as ProxyDetailsDto;
      expect(details.proxyUrl).toBe('http://nas:18080/proxy/movies');
      const other = await adminFrom(t, { Host: '192.168.1.20:18080', Origin: 'http://192.168.1.20:18080' });
      const app = (
        await other.post('/api/admin/v1/apps', { name: 'Other', slug: 'other', templateId: null, active: true })
      ).body as { id: string };
      const created = (
        await other.post(`/api/admin/v1/apps/${app.id}/proxies`, { serviceId: setup.service.id }).expect(201)
      ).body as ProxyConnectionDto;
      expect(created.proxyUrl).toBe('http://192.168.1.20:18080/proxy/other');
    });

    it("scrubs the upstream's address to the proxy URL at the address the caller used", async () => {
      const upstreamUrl = encodeURIComponent(`${setup.upstream.url}/api/v3/movie`);
      const answer = await request(t.app.getHttpServer())
        .get(`/proxy/movies/api/v3/movie?next=${upstreamUrl}`)
        .set('Host', 'nas:18080')
        .set('X-Api-Key', setup.proxy.key)
        .expect(200);
      expect((answer.body as { query: string }).query).toBe(
        `next=${encodeURIComponent('http://nas:18080/proxy/movies/api/v3/movie')}`,
      );
    });
  });

  describe('with PUBLIC_URL unset behind a TRUST_PROXY reverse proxy', () => {
    let t: TestApp;
    let setup: ProxiedUpstream;
    const FORWARDED = { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'arr.example' };
    const signIn = (headers: Record<string, string>) =>
      request(t.app.getHttpServer()).post('/api/auth/sign-in').set(headers).send(TEST_ADMIN);

    beforeAll(async () => {
      // supertest connects from the loopback address.
      t = await startTestApp({ PUBLIC_URL: '', TRUST_PROXY: 'loopback' });
      setup = await proxiedUpstream(
        await adminFrom(t, { ...FORWARDED, Host: 'arrbiter:8080', Origin: 'https://arr.example' }),
        'shows',
        'Shows',
        {},
      );
    });
    afterAll(async () => {
      await setup?.upstream.stop();
      await t?.close();
    });

    it('lets the forwarded scheme and host decide the origin, and marks the cookie Secure', async () => {
      const response = await signIn({ ...FORWARDED, Host: 'arrbiter:8080', Origin: 'https://arr.example' }).expect(200);
      expect(sessionCookie(response)).toMatch(/Secure/);
      // The address the proxy reached the server at is not where the browser is.
      await signIn({ ...FORWARDED, Host: 'arrbiter:8080', Origin: 'http://arrbiter:8080' }).expect(403);
    });

    it('shows proxy URLs at the forwarded address and prefix', async () => {
      const headers = { ...FORWARDED, Host: 'arrbiter:8080', Origin: 'https://arr.example' };
      const admin = await adminFrom(t, headers);
      const details = (await admin.get(`/api/admin/v1/proxies/${setup.proxy.id}`).expect(200)).body as ProxyDetailsDto;
      expect(details.proxyUrl).toBe('https://arr.example/proxy/shows');
      const prefixed = await adminFrom(t, { ...headers, 'X-Forwarded-Prefix': '/arrbiter' });
      const under = (await prefixed.get(`/api/admin/v1/proxies/${setup.proxy.id}`).expect(200)).body as ProxyDetailsDto;
      expect(under.proxyUrl).toBe('https://arr.example/arrbiter/proxy/shows');
    });

    it('answers a proxy that keeps the X-Forwarded-Prefix it names in the path, and one that strips it', async () => {
      const headers = { ...FORWARDED, Host: 'arrbiter:8080', 'X-Forwarded-Prefix': '/arrbiter' };
      const server = t.app.getHttpServer();
      for (const prefix of ['/arrbiter', '']) {
        await request(server).get(`${prefix}/health`).set(headers).expect(200, { status: 'ok' });
        const answer = await request(server)
          .get(`${prefix}/proxy/shows/api/v3/system/status`)
          .set(headers)
          .set('X-Api-Key', setup.proxy.key);
        expect(answer.status).not.toBe(404);
        expect(answer.status).toBeLessThan(500);
      }
      // The prefix is stripped only where it names a whole first segment, and only from a trusted peer.
      await request(server).get('/arrbiterx/health').set(headers).expect(404);
      // A prefix that is one of the server's own roots names no sub-path.
      await request(server)
        .get('/health')
        .set({ ...headers, 'X-Forwarded-Prefix': '/health' })
        .expect(200, { status: 'ok' });
    });
  });

  describe('with PUBLIC_URL set', () => {
    let t: TestApp;
    let setup: ProxiedUpstream;
    const PUBLIC = { Host: 'nas:18080', Origin: 'https://arr.example' };
    const warnings: string[] = [];

    beforeAll(async () => {
      const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
        warnings.push(String(message));
      });
      try {
        t = await startTestApp({ PUBLIC_URL: 'https://arr.example', TRUST_PROXY: 'loopback' });
      } finally {
        warn.mockRestore();
      }
      setup = await proxiedUpstream(await adminFrom(t, PUBLIC), 'books', 'Books', {});
    });
    afterAll(async () => {
      await setup?.upstream.stop();
      await t?.close();
    });

    it('accepts only PUBLIC_URL (and ALLOWED_ORIGINS), whatever the request says its own origin is', async () => {
      const response = await request(t.app.getHttpServer())
        .post('/api/auth/sign-in')
        .set({ Host: 'nas:18080', Origin: 'http://nas:18080' })
        .send(TEST_ADMIN)
        .expect(403);
      expect(response.body.message).toMatch(/PUBLIC_URL is https:\/\/arr\.example/);
      expect(response.body.message).toMatch(/ALLOWED_ORIGINS/);
      await request(t.app.getHttpServer())
        .post('/api/auth/sign-in')
        .set({ Host: 'evil.example', 'X-Forwarded-Host': 'evil.example', Origin: 'https://evil.example' })
        .send(TEST_ADMIN)
        .expect(403);
      const signedIn = await request(t.app.getHttpServer()).post('/api/auth/sign-in').set(PUBLIC).send(TEST_ADMIN);
      expect(signedIn.status).toBe(200);
      expect(sessionCookie(signedIn)).toMatch(/Secure/);
      expect(signedIn.body).toEqual({ username: 'admin', role: 'owner', publicUrlSet: true, passwordGenerated: false });
      expect(warnings.filter((line) => line.includes('PUBLIC_URL is unset'))).toHaveLength(0);
    });

    it('shows proxy URLs under PUBLIC_URL, whatever the Host', async () => {
      const admin = await adminFrom(t, { ...PUBLIC, 'X-Forwarded-Host': 'other.example' });
      const details = (await admin.get(`/api/admin/v1/proxies/${setup.proxy.id}`).expect(200)).body as ProxyDetailsDto;
      expect(details.proxyUrl).toBe('https://arr.example/proxy/books');
    });
  });

  /** PUBLIC_URL with a path (served under it): front proxies that keep the prefix and ones that strip it. */
  describe('under a sub-path (PUBLIC_URL=https://home.example/arrbiter)', () => {
    let t: TestApp;
    let setup: ProxiedUpstream;
    const HOME = { Host: 'home.example', Origin: 'https://home.example' };
    const GRANTS = { '/api/v3/movie': ['get'] };

    beforeAll(async () => {
      t = await startTestApp({ PUBLIC_URL: 'https://home.example/arrbiter/' });
      setup = await proxiedUpstream(await adminFrom(t, HOME), 'films', 'Films', GRANTS);
      await (await adminFrom(t, HOME))
        .put(`/api/admin/v1/proxies/${setup.proxy.id}/config`, { overrides: GRANTS, active: true, scrub: true })
        .expect(200);
    });
    afterAll(async () => {
      await setup?.upstream.stop();
      await t?.close();
    });

    it.each([
      ['keeps', '/arrbiter'],
      ['strips', ''],
    ])('signs in through a front proxy that %s the prefix, with the cookie Path at the prefix', async (_, prefix) => {
      const server = t.app.getHttpServer();
      const response = await request(server).post(`${prefix}/api/auth/sign-in`).set(HOME).send(TEST_ADMIN);
      expect(response.status).toBe(200);
      const line = sessionCookie(response);
      expect(line).toMatch(/Path=\/arrbiter;/);
      expect(line).toMatch(/Secure/);
      const cookie = line.split(';')[0];
      await request(server)
        .get(`${prefix}/api/auth/session`)
        .set('Cookie', cookie)
        .expect(200, { username: 'admin', role: 'owner', publicUrlSet: true, passwordGenerated: false });
      // Writes too: the Origin is PUBLIC_URL's, whatever the path.
      await request(server).post(`${prefix}/api/auth/sign-out`).set(HOME).set('Cookie', cookie).expect(204);
    });

    it('answers /health at the root and under the prefix, and nothing under a longer name', async () => {
      await request(t.app.getHttpServer()).get('/health').expect(200, { status: 'ok' });
      await request(t.app.getHttpServer()).get('/arrbiter/health').expect(200, { status: 'ok' });
      await request(t.app.getHttpServer()).get('/arrbiterx/health').expect(404);
    });

    it("serves the admin API's viewer with its files, its description and its calls under the prefix", async () => {
      const admin = await adminFrom(t, HOME);
      const page = (await admin.get('/arrbiter/api/docs').expect(200)).text;
      const sources = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
      expect(sources.sort()).toEqual([
        '/arrbiter/api/docs/init.js',
        '/arrbiter/api/docs/swagger-ui-bundle.js',
        '/arrbiter/api/docs/swagger-ui.css',
      ]);
      for (const source of sources) await admin.get(source).expect(200);
      expect((await admin.get('/arrbiter/api/docs/init.js')).text).toContain("url: '/arrbiter/api/docs/openapi.json'");
      const document = (await admin.get('/arrbiter/api/docs/openapi.json').expect(200)).body as {
        servers?: { url: string }[];
      };
      expect(document.servers).toEqual([{ url: '/arrbiter' }]);
    });

    it('shows proxy URLs under the prefix, and forwards proxy calls with and without it', async () => {
      const admin = await adminFrom(t, HOME);
      const details = (await admin.get(`/arrbiter/api/admin/v1/proxies/${setup.proxy.id}`).expect(200))
        .body as ProxyDetailsDto;
      expect(details.proxyUrl).toBe('https://home.example/arrbiter/proxy/films');
      const upstreamUrl = encodeURIComponent(`${setup.upstream.url}/api/v3/movie`);
      for (const prefix of ['/arrbiter', '']) {
        const answer = await request(t.app.getHttpServer())
          .get(`${prefix}/proxy/films/api/v3/movie?next=${upstreamUrl}`)
          .set('Host', 'home.example')
          .set('X-Api-Key', setup.proxy.key)
          .expect(200);
        const echo = answer.body as { path: string; query: string };
        expect(echo.path).toBe('/api/v3/movie');
        expect(echo.query).toBe(`next=${encodeURIComponent('https://home.example/arrbiter/proxy/films/api/v3/movie')}`);
      }
    });
  });

  it('refuses OIDC_ISSUER without PUBLIC_URL at start-up: the redirect URI needs a fixed address', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'arrbiter-public-url-'));
    try {
      const env = { DATA_DIR: dataDir, OIDC_ISSUER: 'https://auth.example.com', OIDC_CLIENT_ID: 'arrbiter' };
      expect(() => loadConfig(env)).toThrow(ConfigError);
      expect(() => loadConfig(env)).toThrow(/OIDC_ISSUER is set without PUBLIC_URL/);
      expect(loadConfig({ ...env, PUBLIC_URL: 'https://arr.example' }).oidc).toBeDefined();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
