import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { AppDto, Page, ProblemDetails, ProxyConnectionDto, WarningDto } from '@arrbiter/contracts';
import { DatabaseLogger } from '@arrbiter/server/database';
import { BODY_BYTES_PER_COLLECTION, BodyMemory } from '@arrbiter/server/gateway';
import { InterceptorsConsumer } from '@nestjs/core/interceptors';
import { WarningRecorder } from '@arrbiter/server/warnings';
import { EchoResponse, FakeServarr } from '@arrbiter/tools/fake-servarr';
import { rawRequest } from '../testing/raw-http';
import { AccessLine, accessLinesWhen } from '../testing/access-lines';
import { proxiedUpstream } from '../testing/proxied-upstream';
import { AdminClient, startTestApp, TestApp } from '../testing/test-app';
import { seedProxy } from '@arrbiter/server/testing';

/**
 * Opens a WebSocket through the proxy at `path`, sends `message` (after `quietMs` of silence) and
 * resolves with the first answer.
 */
function webSocketEcho(base: string, path: string, message: string, quietMs = 0): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const url = new URL(base);
    const req = httpRequest({
      host: url.hostname,
      port: url.port,
      path,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
      },
    });
    req.on('upgrade', (_res, socket) => {
      socket.once('data', (data: Buffer) => {
        resolve(data.toString());
        socket.destroy();
      });
      setTimeout(() => socket.write(message), quietMs);
    });
    req.on('response', (res) => reject(new Error(`answered ${res.statusCode}`)));
    req.on('error', reject);
    req.end();
  });
}

const OVERRIDES = {
  '/api/v3/movie': ['get', 'post'],
  '/api/v3/movie/{id}': ['delete', 'get'],
  '/api/v3/calendar': ['get'],
  '/api/v3/test/stream': ['get'],
  '/api/v3/test/slow': ['get', 'post'],
  '/api/v3/test/status/{code}': ['get'],
  '/api/v3/test/upload': ['post'],
  // Not in the catalog: an allowlist path is a route of its own.
  '/api/v3/custom/{name}/report': ['get'],
  '/signalr/messages': ['get', 'post'],
  '/signalr/messages/negotiate': ['post'],
  '/api/v3/test/release': ['get'],
  // Prowlarr's download links, outside its API.
  '/{id}/download': ['get'],
};

// Both ways of running the route's guard and interceptor (`PROXY_CHECKS`): the same behaviour.
describe.each(['direct', 'nest'] as const)('the /proxy route (PROXY_CHECKS=%s)', (checks) => {
  let t: TestApp;
  let admin: AdminClient;
  let upstream: FakeServarr;
  let base: string;
  let app: AppDto;
  let proxy: ProxyConnectionDto;
  let key: string;

  const call = (method: string, path: string, headers: Record<string, string> = {}, body?: Buffer | string) =>
    rawRequest(base, method, `/proxy/notifiarr${path}`, { 'x-api-key': key, ...headers }, body);
  const echo = async (method: string, path: string, headers: Record<string, string> = {}) => {
    const response = await call(method, path, headers);
    expect(response.status).toBe(200);
    return response.json<EchoResponse>();
  };

  beforeAll(async () => {
    t = await startTestApp({
      OPENAPI_SOURCES: 'none',
      UPSTREAM_TIMEOUT_MS: '700',
      PROXY_NAME: 'arrbiter-test',
      PROXY_CHECKS: checks,
    });
    admin = await t.admin();
    base = await t.listen();
    ({ upstream, app, proxy } = await proxiedUpstream(admin, 'notifiarr', 'Notifiarr', OVERRIDES));
    key = proxy.key;
  });
  afterAll(async () => {
    await upstream.stop();
    await t.close();
  });

  describe('route resolution and the allowlist', () => {
    it('GET /api/v3/movie/{id} allows /api/v3/movie/42 but not /api/v3/movie/lookup', async () => {
      expect((await call('GET', '/api/v3/movie/42')).status).toBe(200);
      const refused = await call('GET', '/api/v3/movie/lookup?term=x');
      expect(refused.status).toBe(403);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.json<ProblemDetails>()).toMatchObject({ type: 'about:blank', title: 'Forbidden', status: 403 });
    });

    it('DELETE /api/v3/movie/{id} does not allow DELETE /api/v3/movie/editor', async () => {
      expect((await call('DELETE', '/api/v3/movie/42')).status).toBe(200);
      expect((await call('DELETE', '/api/v3/movie/editor')).status).toBe(403);
    });

    it('an integer-typed {id} refuses abc', async () => {
      expect((await call('GET', '/api/v3/movie/abc')).status).toBe(403);
    });

    it('GET does not grant HEAD', async () => {
      expect((await call('HEAD', '/api/v3/movie/42')).status).toBe(403);
      expect((await call('OPTIONS', '/api/v3/movie/42')).status).toBe(403);
    });

    it('matches case-insensitively and forwards the original case', async () => {
      const body = await echo('GET', '/API/V3/Movie/7');
      expect(body.path).toBe('/API/V3/Movie/7');
    });

    it('resolves allowlist paths that the catalog does not know', async () => {
      expect((await call('GET', '/api/v3/custom/weekly/report')).status).toBe(200);
      expect((await call('GET', '/api/v3/custom/weekly/other')).status).toBe(403);
    });

    it('refuses paths that resolve to no route, and the empty path', async () => {
      expect((await call('GET', '/api/v3/unknown')).status).toBe(403);
      expect((await call('GET', '')).status).toBe(403);
      expect((await call('GET', '/')).status).toBe(403);
    });
  });

  describe('canonical paths', () => {
    it.each([
      '/api/v3/movie/../config/host',
      '/api/v3/movie/%2e%2e/config/host',
      '/api/v3/movie/%2E%2E/config/host',
      '/api/v3/movie/.%2e/config/host',
      '/api/v3/./movie/42',
      '/api/v3/movie%2f42',
      '/api/v3/movie%2F..%2Fconfig%2Fhost',
      '/api/v3/movie%5c42',
      '/api/v3/movie\\42',
      '/api/v3/movie/42;x=1',
      '/api/v3/movie/42%00',
      '/api/v3/movie/42%0d%0a',
      '/api/v3/movie/%zz',
    ])('refuses %s with 400 and forwards nothing', async (path) => {
      const before = upstream.requests.length;
      const response = await call('GET', path);
      expect(response.status).toBe(400);
      expect(response.json<ProblemDetails>()).toMatchObject({ status: 400, title: 'Bad Request' });
      expect(upstream.requests.length).toBe(before);
    });

    it('collapses doubled slashes, drops a trailing one, decodes unreserved escapes: what was checked is forwarded', async () => {
      expect((await echo('GET', '//api//v3///movie//42/')).path).toBe('/api/v3/movie/42');
      expect((await echo('GET', '/api/v3/%6Dovie/%34%32')).path).toBe('/api/v3/movie/42');
    });

    it('joins the URL base exactly once', async () => {
      const body = await echo('GET', '/api/v3/movie/42');
      expect(body.url).toBe('/radarr/api/v3/movie/42');
      // A client that adds the URL base itself asks for a path the upstream does not have.
      expect((await call('GET', '/radarr/api/v3/movie/42')).status).toBe(403);
    });
  });

  describe("the upstream's key and address in responses", () => {
    for (const gzip of [false, true]) {
      it(`are replaced by the caller's key and the proxy URL${gzip ? ' (gzip-compressed upstream)' : ' (split across chunks)'}`, async () => {
        const response = await call('GET', `/api/v3/test/release${gzip ? '?gzip=1' : ''}`, {
          'accept-encoding': 'gzip',
        });
        expect(response.status).toBe(200);
        expect(response.headers['content-encoding']).toBeUndefined();
        const text = response.text;
        expect(text).not.toContain(upstream.options.apiKey);
        expect(text).not.toContain(new URL(upstream.url).host);
        expect(text).not.toContain(encodeURIComponent(new URL(upstream.url).host));
        const [release] = JSON.parse(text) as { downloadUrl: string; indexer: { fields: { value: string }[] } }[];
        expect(release.indexer.fields[0].value).toBe(key);
        // The rewritten link works through the proxy (its path is granted), with the caller's key.
        const link = new URL(release.downloadUrl);
        expect(link.pathname).toBe('/proxy/notifiarr/12/download');
        expect(link.searchParams.get('apikey')).toBe(key);
        const followed = await rawRequest(base, 'GET', `${link.pathname}${link.search}`, {});
        expect(followed.status).toBe(200);
        expect(followed.json<EchoResponse>()).toMatchObject({ path: '/12/download', query: 'link=abc' });
        expect(upstream.requests.at(-1)?.headers['x-api-key']).toBe(upstream.options.apiKey);
      });
    }
  });

  describe('query strings and forwarding', () => {
    it('keeps repeated and dotted parameters and strips every apikey in any case', async () => {
      const body = await echo(
        'GET',
        `/api/v3/movie?sort.key=title&ids=1&ids=2&apikey=${key}&ApiKey=x&APIKEY=y&%61pikey=z&empty=&flag`,
      );
      expect(body.query).toBe('sort.key=title&ids=1&ids=2&empty=&flag');
    });

    it("swaps in the upstream's key and drops the client's credentials", async () => {
      const body = await echo('GET', '/api/v3/movie/1', {
        authorization: 'Bearer client-token',
        cookie: 'session=client',
        'user-agent': 'LunaSea/10.2',
        via: '1.0 front',
        'x-forwarded-for': '203.0.113.9',
        connection: 'keep-alive, x-hop',
        'x-hop': 'must not pass',
        'x-custom': 'kept',
        // Not from a trusted reverse proxy (TRUST_PROXY is unset): ignored.
        'x-forwarded-proto': 'https',
      });
      // What the upstream received; its echo of it comes back with its key scrubbed to the caller's.
      expect(upstream.requests.at(-1)?.headers['x-api-key']).toBe(upstream.options.apiKey);
      expect(body.headers['x-api-key']).toBe(key);
      expect(body.headers.authorization).toBeUndefined();
      expect(body.headers.cookie).toBeUndefined();
      expect(body.headers['x-hop']).toBeUndefined();
      expect(body.headers['user-agent']).toBe('LunaSea/10.2');
      expect(body.headers['x-custom']).toBe('kept');
      expect(body.headers.host).toBe(`127.0.0.1:${upstream.port}`);
      expect(body.headers.via).toBe('1.0 front, 1.1 arrbiter-test');
      expect(body.headers['x-forwarded-for']).toBe('203.0.113.9, 127.0.0.1');
      expect(body.headers['x-forwarded-proto']).toBe('http');
      expect(body.headers['x-forwarded-host']).toBe(new URL(base).host);
    });

    it('streams request bodies to the upstream unchanged', async () => {
      const payload = randomBytes(3 * 1024 * 1024);
      const response = await call(
        'POST',
        '/api/v3/test/upload',
        { 'content-type': 'application/octet-stream' },
        payload,
      );
      expect(response.status).toBe(200);
      expect(response.json<EchoResponse>().body).toEqual({
        length: payload.length,
        sha256: createHash('sha256').update(payload).digest('hex'),
      });
    });

    it("passes the upstream's status, headers and body through unchanged", async () => {
      for (const status of [500, 403, 401, 404, 201]) {
        const response = await call('GET', `/api/v3/test/status/${status}`);
        expect(response.status).toBe(status);
        expect(response.headers['x-upstream']).toBe('fake-servarr');
        expect(response.json()).toEqual({ message: `status ${status} from upstream` });
      }
    });
  });

  it('answers 404 with a problem document when the URL names no app', async () => {
    for (const path of ['/proxy', '/proxy/', '/proxy?apikey=x', '/proxy//api/v3/movie']) {
      const response = await rawRequest(base, 'GET', path, { 'x-api-key': key });
      expect(response.status).toBe(404);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json<ProblemDetails>()).toMatchObject({ status: 404, title: 'Not Found' });
    }
  });

  it('runs its own interceptor alone around the handler (nest), or calls its checks itself (direct): no global interceptor (such as a CLS no-op) adds a layer', async () => {
    const intercept = jest.spyOn(InterceptorsConsumer.prototype, 'intercept');
    try {
      expect((await call('GET', '/api/v3/movie/1')).status).toBe(200);
      const layers = intercept.mock.calls.map(([interceptors]) => interceptors.map((i) => i.constructor.name));
      expect(layers).toEqual(checks === 'nest' ? [['AllowlistInterceptor']] : []);
    } finally {
      intercept.mockRestore();
    }
  });

  it('adds no admin security headers and sets no cookie on proxied responses, only its own isolation', async () => {
    const response = await call('GET', '/api/v3/movie/1');
    // Not the dashboard's policy (helmet's), but a sandbox: the answer shares the dashboard's origin.
    expect(response.headers['content-security-policy']).toBe('sandbox');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['cross-origin-opener-policy']).toBeUndefined();
    expect(response.headers['set-cookie']).toBeUndefined();
  });

  describe('credentials', () => {
    let unauthorizedBody: string;

    it('answers 401 with one body for every credential failure', async () => {
      const bodies = new Set<string>();
      const cases = [
        () => rawRequest(base, 'GET', '/proxy/notifiarr/api/v3/movie/1'),
        () => call('GET', '/api/v3/movie/1', { 'x-api-key': '0'.repeat(32) }),
        () => call('GET', '/api/v3/movie/1', { 'x-api-key': 'not-a-key' }),
        () => rawRequest(base, 'GET', '/proxy/nobody/api/v3/movie/1', { 'x-api-key': key }),
        () => rawRequest(base, 'GET', '/proxy/NOTIFIARR/api/v3/movie/1', { 'x-api-key': key }),
        () => call('GET', '/api/v3/movie/1', { 'x-api-key': upstream.options.apiKey }),
        () => rawRequest(base, 'GET', `/proxy/notifiarr/api/v3/movie/1?apikey=${upstream.options.apiKey}`),
        () => call('GET', '/api/v3/movie/1', { 'x-api-key': key.toUpperCase() }),
      ];
      for (const attempt of cases) {
        const response = await attempt();
        expect(response.status).toBe(401);
        bodies.add(response.text);
      }
      expect(bodies.size).toBe(1);
      unauthorizedBody = [...bodies][0];
      expect(JSON.parse(unauthorizedBody)).toMatchObject({ type: 'about:blank', title: 'Unauthorized', status: 401 });
    });

    it('takes the key from the apikey query parameter in any case; the header wins when both are present', async () => {
      expect((await rawRequest(base, 'GET', `/proxy/notifiarr/api/v3/movie/1?ApiKey=${key}`)).status).toBe(200);
      expect((await call('GET', `/api/v3/movie/1?apikey=${'0'.repeat(32)}`)).status).toBe(200);
      const wrongHeader = await rawRequest(base, 'GET', `/proxy/notifiarr/api/v3/movie/1?apikey=${key}`, {
        'x-api-key': '0'.repeat(32),
      });
      expect(wrongHeader.status).toBe(401);
    });

    it('refuses an inactive proxy and an inactive app with the same 401, at once', async () => {
      await admin.patch(`/api/admin/v1/proxies/${proxy.id}`, { active: false }).expect(200);
      const inactiveProxy = await call('GET', '/api/v3/movie/1');
      await admin.patch(`/api/admin/v1/proxies/${proxy.id}`, { active: true }).expect(200);
      await admin.patch(`/api/admin/v1/apps/${app.id}`, { active: false }).expect(200);
      const inactiveApp = await call('GET', '/api/v3/movie/1');
      await admin.patch(`/api/admin/v1/apps/${app.id}`, { active: true }).expect(200);
      expect([inactiveProxy.status, inactiveApp.status]).toEqual([401, 401]);
      expect([inactiveProxy.text, inactiveApp.text]).toEqual([unauthorizedBody, unauthorizedBody]);
      expect((await call('GET', '/api/v3/movie/1')).status).toBe(200);
    });

    it('enforces an allowlist change and a key rotation on the very next request', async () => {
      await admin
        .put(`/api/admin/v1/proxies/${proxy.id}/config`, {
          overrides: { ...OVERRIDES, '/api/v3/calendar': [] },
          active: true,
        })
        .expect(200);
      expect((await call('GET', '/api/v3/calendar')).status).toBe(403);
      await admin.put(`/api/admin/v1/proxies/${proxy.id}/config`, { overrides: OVERRIDES, active: true }).expect(200);
      expect((await call('GET', '/api/v3/calendar')).status).toBe(200);

      const old = key;
      key = ((await admin.post(`/api/admin/v1/proxies/${proxy.id}/rotate-key`).expect(200)).body as { key: string })
        .key;
      expect((await call('GET', '/api/v3/calendar', { 'x-api-key': old })).status).toBe(401);
      expect((await call('GET', '/api/v3/calendar')).status).toBe(200);
    });

    it('forwards an allowed WebSocket upgrade with the upstream key swapped in', async () => {
      const echoed = await webSocketEcho(
        base,
        `/proxy/notifiarr/signalr/messages?apikey=${key}&transport=webSockets`,
        'ping',
      );
      expect(echoed).toBe('ping');
      const seen = upstream.requests.at(-1);
      expect(seen?.url).toBe('/radarr/signalr/messages?transport=webSockets');
      expect(seen?.headers['x-api-key']).toBe(upstream.options.apiKey);
    });

    it('keeps a WebSocket open while it is quiet for longer than the upstream time-out', async () => {
      const path = `/proxy/notifiarr/signalr/messages?apikey=${key}&transport=webSockets`;
      expect(await webSocketEcho(base, path, 'still here', 1500)).toBe('still here');
    });

    describe('SignalR, with the key as access_token', () => {
      const token = () => `access_token=${key}`;

      it('negotiates, and the upstream gets its key as X-Api-Key, not in the query', async () => {
        const response = await rawRequest(
          base,
          'POST',
          `/proxy/notifiarr/signalr/messages/negotiate?negotiateVersion=1&${token()}`,
          {},
        );
        expect(response.status).toBe(200);
        expect(response.json()).toMatchObject({ connectionToken: 'token-1' });
        const seen = upstream.requests.at(-1);
        expect(seen?.url).toBe('/radarr/signalr/messages/negotiate?negotiateVersion=1');
        expect(seen?.headers['x-api-key']).toBe(upstream.options.apiKey);
      });

      it('long-polls and sends', async () => {
        const poll = await rawRequest(base, 'GET', `/proxy/notifiarr/signalr/messages?id=token-1&${token()}`, {});
        expect(poll.status).toBe(200);
        expect(poll.text).toContain('"target":"receiveMessage"');
        const sent = await rawRequest(
          base,
          'POST',
          `/proxy/notifiarr/signalr/messages?id=token-1&${token()}`,
          { 'content-type': 'text/plain' },
          '{"type":6}\x1e',
        );
        expect(sent.status).toBe(200);
        expect(upstream.requests.at(-1)?.url).toBe('/radarr/signalr/messages?id=token-1');
      });

      it('streams server-sent events as they come, not held back by the scrubber', async () => {
        const first = await new Promise<string>((resolve, reject) => {
          const url = new URL(base);
          const req = httpRequest(
            {
              host: url.hostname,
              port: url.port,
              path: `/proxy/notifiarr/signalr/messages?id=token-1&${token()}`,
              headers: { accept: 'text/event-stream' },
            },
            (res) => {
              if (res.statusCode !== 200) reject(new Error(`answered ${res.statusCode}`));
              // The upstream leaves the stream open: the first event must arrive on its own.
              res.once('data', (chunk: Buffer) => {
                resolve(chunk.toString());
                req.destroy();
              });
            },
          );
          req.on('error', reject);
          req.end();
        });
        expect(first).toMatch(/^data: \{"type":1,"target":"receiveMessage"/);
      });

      it('opens a WebSocket', async () => {
        const echoed = await webSocketEcho(
          base,
          `/proxy/notifiarr/signalr/messages?id=token-1&${token()}`,
          '{"protocol":"json","version":1}\x1e',
        );
        expect(echoed).toBe('{"protocol":"json","version":1}\x1e');
        expect(upstream.requests.at(-1)?.url).toBe('/radarr/signalr/messages?id=token-1');
      });
    });

    it('refuses a WebSocket upgrade that fails the checks', async () => {
      const status = await new Promise<number>((resolve, reject) => {
        const url = new URL(base);
        const req = httpRequest({
          host: url.hostname,
          port: url.port,
          path: '/proxy/notifiarr/signalr/messages',
          headers: {
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-version': '13',
            'sec-websocket-key': randomBytes(16).toString('base64'),
          },
        });
        req.on('response', (res) => resolve(res.statusCode ?? 0));
        req.on('upgrade', () => reject(new Error('upgraded')));
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(401);
    });
  });

  describe('upstream failures', () => {
    it('answers 504 when the upstream is too slow', async () => {
      const response = await call('GET', '/api/v3/test/slow?ms=3000');
      expect(response.status).toBe(504);
      expect(response.json<ProblemDetails>()).toMatchObject({ status: 504, title: 'Gateway Timeout' });
      const slow = (lines: AccessLine[]) => lines.find((l) => l.proxy.path === '/api/v3/test/slow');
      const line = slow(await accessLinesWhen(t.logs, (lines) => slow(lines) !== undefined));
      expect(line).toMatchObject({ level: 40, status: 504, proxy: { outcome: 'upstream-timeout' } });
      expect(line?.proxy.upstreamMs).toBeGreaterThanOrEqual(500);
    });

    it('waits for a client whose upload stalls for longer than the time-out: the upstream is not late', async () => {
      const payload = randomBytes(1024 * 1024);
      const response = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const url = new URL(base);
        const req = httpRequest(
          {
            host: url.hostname,
            port: url.port,
            method: 'POST',
            path: '/proxy/notifiarr/api/v3/test/upload',
            headers: { 'x-api-key': key, 'content-type': 'application/octet-stream', 'content-length': payload.length },
            agent: false,
          },
          (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (body += chunk));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.write(payload.subarray(0, 64 * 1024));
        setTimeout(() => req.end(payload.subarray(64 * 1024)), 1500);
      });
      expect(response.status).toBe(200);
      expect((JSON.parse(response.body) as EchoResponse).body).toEqual({
        length: payload.length,
        sha256: createHash('sha256').update(payload).digest('hex'),
      });
    });

    it('still answers 504 when the upstream is too slow to answer a call whose body is in', async () => {
      const response = await call('POST', '/api/v3/test/slow?ms=3000', { 'content-type': 'text/plain' }, 'a body');
      expect(response.status).toBe(504);
    });

    it('answers 504 when the upstream stops reading an upload for longer than the time-out', async () => {
      // test/slow does not read the body: far more than the socket buffers hold stalls the upload.
      const body = Buffer.alloc(32 * 1024 * 1024, 'u');
      const response = await call('POST', '/api/v3/test/slow?ms=3000', { 'content-type': 'text/plain' }, body);
      expect(response.status).toBe(504);
    });

    it('keeps streaming to a client that stops reading for longer than the time-out: the upstream is not late', async () => {
      const size = 32 * 1024 * 1024;
      const received = await new Promise<number>((resolve, reject) => {
        const url = new URL(base);
        const req = httpRequest(
          {
            host: url.hostname,
            port: url.port,
            path: `/proxy/notifiarr/api/v3/test/stream?bytes=${size}`,
            headers: { 'x-api-key': key },
            agent: false,
          },
          (res) => {
            let length = 0;
            // Far more than the socket buffers hold: the proxy stops reading the upstream meanwhile.
            res.once('data', () => {
              res.pause();
              setTimeout(() => res.resume(), 1500);
            });
            res.on('data', (chunk: Buffer) => (length += chunk.length));
            res.on('end', () => resolve(length));
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(received).toBe(size);
      const stream = (lines: AccessLine[]) => lines.find((l) => l.proxy.path === '/api/v3/test/stream');
      const line = stream(await accessLinesWhen(t.logs, (lines) => stream(lines) !== undefined));
      expect(line).toMatchObject({ level: 30, status: 200, proxy: { outcome: 'forwarded' } });
    });
  });

  describe('hot path', () => {
    it('makes no database query for allowed requests', async () => {
      await t.app.get(WarningRecorder).flush();
      const counter = t.app.get(DatabaseLogger);
      const before = counter.queryCount;
      const calls = 50;
      for (let i = 0; i < calls; i += 1) expect((await call('GET', `/api/v3/movie/${i}`)).status).toBe(200);
      // The write-behind batches (usage counters every 5 s, a key's use every second) may fall inside
      // the loop: a handful of queries at most. A query per request would be at least one per call.
      expect(counter.queryCount - before).toBeLessThan(calls / 5);
    });

    it('has V8 free the buffers of streamed bodies as it goes, downloads and uploads alike', async () => {
      const bodies = t.app.get(BodyMemory);
      expect(bodies.enabled).toBe(true);
      const size = 3 * BODY_BYTES_PER_COLLECTION;
      let before = bodies.collectionCount;
      const download = await call('GET', `/api/v3/test/stream?bytes=${size}`);
      expect(download.text.length).toBe(size);
      expect(bodies.collectionCount - before).toBeGreaterThanOrEqual(2);
      before = bodies.collectionCount;
      const upload = await call('POST', '/api/v3/test/upload', {}, Buffer.alloc(size, 7));
      expect(upload.json<EchoResponse>().body).toMatchObject({ length: size });
      expect(bodies.collectionCount - before).toBeGreaterThanOrEqual(2);
    });
  });

  describe('access warnings', () => {
    it('records every 403 asynchronously, aggregated per route, with the resolved route or the path', async () => {
      await call('GET', '/api/v3/movie/lookup?term=a');
      await call('GET', '/api/v3/movie/lookup?term=b');
      await call('GET', '/api/v3/nowhere/at/all');
      await t.app.get(WarningRecorder).flush();
      const page = (await admin.get(`/api/admin/v1/warnings?proxyId=${proxy.id}&status=open&limit=100`).expect(200))
        .body as Page<WarningDto>;
      const lookup = page.items.find((w) => w.route === '/api/v3/movie/lookup' && w.method === 'get');
      expect(lookup).toMatchObject({ appId: app.id, path: '/api/v3/movie/lookup', status: 'open' });
      expect(lookup?.count).toBeGreaterThanOrEqual(3);
      expect(page.items.find((w) => w.path === '/api/v3/nowhere/at/all')).toMatchObject({ route: null, count: 1 });
      expect(page.items.find((w) => w.method === 'head')).toMatchObject({ route: '/api/v3/movie/{id}' });
      expect(JSON.stringify(page)).not.toContain('term=');
    });

    it('pages with a cursor and filters by app and status', async () => {
      const first = (await admin.get(`/api/admin/v1/warnings?appId=${app.id}&limit=2`).expect(200))
        .body as Page<WarningDto>;
      expect(first.items).toHaveLength(2);
      expect(first.nextCursor).toEqual(expect.any(String));
      const second = (
        await admin.get(`/api/admin/v1/warnings?appId=${app.id}&limit=2&cursor=${first.nextCursor}`).expect(200)
      ).body as Page<WarningDto>;
      expect(second.items[0].id).not.toBe(first.items[0].id);
      expect(
        ((await admin.get('/api/admin/v1/warnings?status=dismissed').expect(200)).body as Page<WarningDto>).items,
      ).toEqual([]);
      await admin.get('/api/admin/v1/warnings?status=nope').expect(400);
      await admin.get('/api/admin/v1/warnings?cursor=garbage').expect(400);
    });
  });

  it('writes one access line per call when its response closes, with the decision and how forwarding ended', async () => {
    expect((await call('GET', '/api/v3/movie/777?sort=x')).status).toBe(200);
    expect((await call('GET', '/api/v3/movie/lookup?term=access-line')).status).toBe(403);
    const down = await FakeServarr.start();
    const { proxy: other } = await seedProxy(admin, {
      upstream: down,
      app,
      config: { overrides: { '/api/v3/queue': ['get'] }, active: true },
    });
    await down.stop();
    const failed = await rawRequest(base, 'GET', '/proxy/notifiarr/api/v3/queue', { 'x-api-key': other.key });
    expect(failed.status).toBe(502);

    // The last three: earlier tests were refused /api/v3/movie/lookup too.
    const ours = (lines: AccessLine[]) =>
      lines
        .filter((l) => ['/api/v3/movie/777', '/api/v3/movie/lookup', '/api/v3/queue'].includes(l.proxy.path ?? ''))
        .slice(-3);
    const lines = ours(await accessLinesWhen(t.logs, (found) => ours(found)[2]?.proxy.path === '/api/v3/queue'));
    expect(lines.map((l) => [l.level, l.status, l.proxy.outcome])).toEqual([
      [30, 200, 'forwarded'],
      [30, 403, 'forbidden'],
      [40, 502, 'upstream-unreachable'],
    ]);
    expect(lines[0].proxy).toEqual({
      method: 'GET',
      app: 'notifiarr',
      proxyId: proxy.id,
      path: '/api/v3/movie/777',
      route: '/api/v3/movie/{id}',
      outcome: 'forwarded',
      upstreamMs: lines[0].responseTime,
    });
    expect(lines[2].proxy).toMatchObject({ proxyId: other.id, route: '/api/v3/queue' });
    expect(lines[2].proxy.upstreamMs).toBeLessThanOrEqual(lines[2].responseTime);
  });

  it('never logs a proxy key or the upstream key', () => {
    const logs = t.logs.join('');
    expect(logs).toContain('"outcome":"forwarded"');
    expect(logs).not.toContain(key);
    expect(logs).not.toContain(upstream.options.apiKey);
  });
});

describe('the /proxy route behind a trusted reverse proxy, with the upstream going down', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none', TRUST_PROXY: 'loopback' });
  });
  afterAll(() => t.close());

  it('forwards the protocol a trusted reverse proxy reports, then answers 502 when the upstream cannot be reached', async () => {
    const admin = await t.admin();
    const base = await t.listen();
    const upstream = await FakeServarr.start();
    const { proxy } = await seedProxy(admin, {
      upstream,
      app: { name: 'A', slug: 'a' },
      config: { overrides: { '/api/v3/movie': ['get'] }, active: true },
    });
    const forwarded = await rawRequest(base, 'GET', '/proxy/a/api/v3/movie', {
      'x-api-key': proxy.key,
      'x-forwarded-proto': 'https, http',
    });
    expect(forwarded.status).toBe(200);
    expect(forwarded.json<EchoResponse>().headers['x-forwarded-proto']).toBe('https');
    await upstream.stop();
    const response = await rawRequest(base, 'GET', '/proxy/a/api/v3/movie', { 'x-api-key': proxy.key });
    expect(response.status).toBe(502);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json<ProblemDetails>()).toMatchObject({ status: 502, title: 'Bad Gateway' });
  });
});
