import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import type { ProxyConnectionDto, ServiceDto, WarningDto, Page } from '@arrbiter/contracts';
import { EchoResponse, FakeServarr } from '@arrbiter/tools/fake-servarr';
import { AccessLine, accessLinesWhen } from '../testing/access-lines';
import { RawResponse, rawRequest } from '../testing/raw-http';
import { exchange } from '../testing/raw-socket';
import { proxiedUpstream } from '../testing/proxied-upstream';
import { AdminClient, startTestApp, TestApp } from '../testing/test-app';
import { eventually, seedProxy } from '@arrbiter/server/testing';

const OVERRIDES = {
  '/api/v3/movie': ['get', 'post'],
  '/api/v3/movie/{id}': ['delete', 'get'],
  '/api/v3/calendar': ['get'],
};

/** The part of a smuggled request the next request on the same upstream connection would complete. */
const INNER = 'GET /radarr/api/v3/config/host HTTP/1.1\r\nX-Ignore: ';

function chunked(body: string): string {
  return `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
}

/** Findings of an adversarial test of the proxy route, one regression test each (docs/security.md). */
describe('the /proxy route under adversarial input', () => {
  let t: TestApp;
  let admin: AdminClient;
  let upstream: FakeServarr;
  let base: string;
  let port: number;
  let key: string;
  let proxy: ProxyConnectionDto;

  const call = (method: string, path: string, headers: Record<string, string> = {}, body?: string) =>
    rawRequest(base, method, `/proxy/notifiarr${path}`, { 'x-api-key': key, ...headers }, body);
  const upstreamSaw = (fragment: string) => upstream.requests.some((r) => r.url.toLowerCase().includes(fragment));

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none' });
    admin = await t.admin();
    base = await t.listen();
    port = Number(new URL(base).port);
    ({ upstream, proxy } = await proxiedUpstream(admin, 'notifiarr', 'Notifiarr', OVERRIDES));
    key = proxy.key;
  });
  afterAll(async () => {
    await upstream.stop();
    await t.close();
  });

  describe('request framing is always Node’s own (critical: request smuggling)', () => {
    it.each([
      [
        'Content-Length named in Connection',
        'GET',
        `Connection: content-length\r\nContent-Length: ${INNER.length}\r\n\r\n${INNER}`,
      ],
      [
        'Transfer-Encoding named in Connection',
        'GET',
        `Connection: transfer-encoding\r\nTransfer-Encoding: chunked\r\n\r\n${chunked(INNER)}`,
      ],
      [
        'a DELETE whose chunked body is named in Connection',
        'DELETE',
        `Connection: keep-alive, Transfer-Encoding\r\nTransfer-Encoding: chunked\r\n\r\n${chunked(INNER)}`,
      ],
    ])('%s: the body goes upstream as a body, never as a request of its own', async (_name, method, rest) => {
      const path = method === 'GET' ? '/api/v3/movie' : '/api/v3/movie/42';
      const head = `${method} /proxy/notifiarr${path} HTTP/1.1\r\nHost: h\r\nX-Api-Key: ${key}\r\n`;
      const first = await exchange(port, head + rest, [method]);
      expect(first.responses.map((r) => r.status)).toEqual([200]);
      const echoed = JSON.parse(first.responses[0].body.toString()) as EchoResponse;
      expect(echoed.body.length).toBe(INNER.length);

      // The next ordinary calls (the pooled upstream connection is reused) get their own answers.
      for (let i = 0; i < 3; i += 1) {
        const next = await call('GET', '/api/v3/calendar');
        expect(next.status).toBe(200);
        expect(next.json<EchoResponse>().path).toBe('/api/v3/calendar');
      }
      expect(upstreamSaw('config/host')).toBe(false);
    });
  });

  describe('a refused request leaves its connection usable or closes it cleanly', () => {
    it.each([
      ['401', { 'x-api-key': '0'.repeat(32) }, '/api/v3/movie', 4096],
      ['403', {}, '/api/v3/config/host', 4096],
      ['401', { 'x-api-key': '0'.repeat(32) }, '/api/v3/movie', 1024 * 1024],
      ['403', {}, '/api/v3/config/host', 1024 * 1024],
    ])('a pooling client’s next call after a %s with a body succeeds (%#)', async (status, headers, path, padding) => {
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      const send = (target: string, extra: Record<string, string>, body?: string) =>
        new Promise<number>((resolve, reject) => {
          const req = httpRequest(
            { host: '127.0.0.1', port, method: body ? 'POST' : 'GET', path: target, agent },
            (res) => {
              res.resume();
              res.on('end', () => resolve(res.statusCode ?? 0));
            },
          );
          for (const [name, value] of Object.entries({ 'x-api-key': key, ...extra })) req.setHeader(name, value);
          req.on('error', reject);
          if (!body) {
            req.end();
            return;
          }
          // As a client streams a body: the head first, the rest a moment later.
          req.write(body.slice(0, 10));
          setTimeout(() => req.end(body.slice(10)), 20);
        });
      t.logs.splice(0);
      try {
        for (let i = 0; i < 3; i += 1) {
          expect(await send(`/proxy/notifiarr${path}`, headers, JSON.stringify({ pad: 'x'.repeat(padding) }))).toBe(
            Number(status),
          );
          expect(await send('/proxy/notifiarr/api/v3/calendar', {})).toBe(200);
        }
      } finally {
        agent.destroy();
      }
      // Node's client sends its body chunked and gives it up once the answer says the connection closes:
      // the access line reports the answer all the same.
      const refused = (lines: AccessLine[]) => lines.filter((line) => line.proxy.outcome !== 'forwarded');
      const refusals = refused(await accessLinesWhen(t.logs, (lines) => refused(lines).length >= 3));
      expect(refusals.map((line) => [line.level, line.status])).toEqual(Array(3).fill([30, Number(status)]));
    });

    it.each([
      ['401', '0'.repeat(32), '/api/v3/movie'],
      ['403', '', '/api/v3/config/host'],
    ])(
      'a %s is not lost to a reset: the client may send its large body after the answer has come',
      async (status, badKey, path) => {
        // Before: the server closed the connection with the answer, the body met a closed socket and the
        // client a reset (EPIPE) while it still wrote — a pooling client then saw an error, not the answer.
        const size = 1024 * 1024;
        const head = `POST /proxy/notifiarr${path} HTTP/1.1\r\nHost: h\r\nX-Api-Key: ${badKey || key}\r\nContent-Length: ${size}\r\n\r\n`;
        const outcome = await new Promise<{ answer: string; error?: string }>((resolve) => {
          const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
          let answer = '';
          let error: string | undefined;
          socket.on('data', (data: Buffer) => {
            if (answer === '') setTimeout(() => socket.end('b'.repeat(size - 10)), 50);
            answer += data.toString();
          });
          socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code));
          socket.on('close', () => resolve({ answer, error }));
          socket.write(head + 'a'.repeat(10));
        });
        expect(outcome.answer).toMatch(new RegExp(`^HTTP/1.1 ${status} .*\r\nConnection: close\r\n`, 's'));
        expect(outcome.error).toBeUndefined();
      },
    );

    it('stops reading a large refused body that does not come: it answers Connection: close and closes within 5 s', async () => {
      // Only the head and a little of a declared 10 MB body are sent.
      const head = `PUT /proxy/notifiarr/api/v3/config/host HTTP/1.1\r\nHost: h\r\nX-Api-Key: ${key}\r\nContent-Length: ${10 * 1024 * 1024}\r\n\r\n`;
      const result = await exchange(port, head + 'z'.repeat(1024), ['PUT'], { untilClose: true, timeoutMs: 8_000 });
      expect(result.responses.map((r) => [r.status, r.headers.connection])).toEqual([[403, 'close']]);
      expect(result.closed).toBe(true);
    }, 15_000);

    it('reads at most 8 MiB of a large refused body: a client that keeps sending has its connection closed', async () => {
      const declared = 256 * 1024 * 1024;
      const head = `PUT /proxy/notifiarr/api/v3/config/host HTTP/1.1\r\nHost: h\r\nX-Api-Key: ${key}\r\nContent-Length: ${declared}\r\n\r\n`;
      const accepted = await new Promise<number>((resolve) => {
        const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
        const chunk = Buffer.alloc(64 * 1024, 'c');
        let written = 0;
        const pump = () => {
          while (written < declared && !socket.destroyed) {
            written += chunk.length;
            if (!socket.write(chunk)) return void socket.once('drain', pump);
          }
        };
        socket.on('error', () => undefined);
        socket.on('close', () => resolve(written));
        socket.write(head);
        pump();
      });
      // The kernel's buffers on both sides take some megabytes more than the server reads.
      expect(accepted).toBeLessThan(64 * 1024 * 1024);
    }, 15_000);

    it.each([
      ['a 100 KiB body', `Content-Length: ${100 * 1024}\r\n\r\n${'y'.repeat(100 * 1024)}`],
      ['a chunked body', `Transfer-Encoding: chunked\r\n\r\n${chunked('y'.repeat(1024))}`],
    ])('forwards nothing pipelined behind a refusal that closes the connection (%s)', async (_name, rest) => {
      const refused = `POST /proxy/notifiarr/api/v3/config/host HTTP/1.1\r\nHost: h\r\nX-Api-Key: ${key}\r\n${rest}`;
      const next = `DELETE /proxy/notifiarr/api/v3/movie/4711 HTTP/1.1\r\nHost: h\r\nX-Api-Key: ${key}\r\n\r\n`;
      const result = await exchange(port, refused + next, ['POST', 'DELETE'], { untilClose: true });
      expect(result.responses.map((r) => [r.status, r.headers.connection])).toEqual([[403, 'close']]);
      // Its answer could never reach the client: it is not processed at all (RFC 9112 §9.6). Before, it
      // went through the checks and was forwarded, and whether it reached the upstream was a race.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(t.logs.join('')).not.toContain('/api/v3/movie/4711');
      expect(upstreamSaw('movie/4711')).toBe(false);
    });

    it('runs no admin API call pipelined behind a refusal that closes the connection', async () => {
      const cookie = await t.signIn();
      const app = (
        await admin
          .post('/api/admin/v1/apps', { name: 'Pipelined', slug: 'pipelined', templateId: null, active: true })
          .expect(201)
      ).body as { id: string };
      const refused = `POST /proxy/notifiarr/api/v3/config/host HTTP/1.1\r\nHost: h\r\nX-Api-Key: ${key}\r\nTransfer-Encoding: chunked\r\n\r\n${chunked('y'.repeat(1024))}`;
      const next = `DELETE /api/admin/v1/apps/${app.id} HTTP/1.1\r\nHost: h\r\nCookie: ${cookie}\r\nOrigin: ${t.config.publicOrigin}\r\n\r\n`;
      const result = await exchange(port, refused + next, ['POST', 'DELETE'], { untilClose: true });
      expect(result.responses.map((r) => [r.status, r.headers.connection])).toEqual([[403, 'close']]);
      // Before: Express deleted the app, and its answer was lost with the connection.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await admin.get(`/api/admin/v1/apps/${app.id}`).expect(200);
      await admin.delete(`/api/admin/v1/apps/${app.id}`).expect(204);
    });

    it('answers pipelined requests after a refused one with a body', async () => {
      const body = 'y'.repeat(2048);
      const refused = `POST /proxy/notifiarr/api/v3/config/host HTTP/1.1\r\nHost: h\r\nX-Api-Key: ${key}\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      const next = `GET /proxy/notifiarr/api/v3/calendar HTTP/1.1\r\nHost: h\r\nX-Api-Key: ${key}\r\n\r\n`;
      const result = await exchange(port, refused + next, ['POST', 'GET']);
      const [first, second] = result.responses;
      expect(first?.status).toBe(403);
      if (second) expect(second.status).toBe(200);
      // Either both were answered, or the refusal said it closes the connection.
      else expect(first.headers.connection).toBe('close');
    });
  });

  describe('Expect: 100-continue (RFC 9110 §10.1.1): the body is asked for only once the call is allowed', () => {
    const head = (target: string, headers: string) =>
      `${target} HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\n${headers}\r\n`;

    it.each([
      ['401', `X-Api-Key: ${'0'.repeat(32)}`, 'POST /proxy/notifiarr/api/v3/movie'],
      ['403', '', 'PUT /proxy/notifiarr/api/v3/config/host'],
      ['404', '', 'POST /proxy'],
    ])(
      'a %s comes at once, without 100 Continue, and closes the connection: the body is never sent',
      async (status, keyHeader, target) => {
        const before = upstream.requests.length;
        const headers = `${keyHeader || `X-Api-Key: ${key}`}\r\nContent-Length: ${1024 * 1024}\r\n`;
        const result = await exchange(port, head(target, headers), [target.split(' ')[0]]);
        // Before: Node sent `100 Continue` to anyone, and the client sent its body to be read and dropped.
        expect(result.interim.map((r) => r.status)).toEqual([]);
        expect(result.responses.map((r) => [r.status, r.headers.connection])).toEqual([[Number(status), 'close']]);
        expect(upstream.requests.length).toBe(before);
      },
    );

    it('an allowed call gets 100 Continue, then its body is forwarded', async () => {
      const body = JSON.stringify({ title: 'Heat' });
      const headers = `X-Api-Key: ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n`;
      const result = await exchange(port, head('POST /proxy/notifiarr/api/v3/movie', headers), ['POST'], {
        afterInterim: body,
      });
      expect(result.interim.map((r) => r.status)).toEqual([100]);
      expect(result.responses.map((r) => r.status)).toEqual([200]);
      const echoed = JSON.parse(result.responses[0].body.toString()) as EchoResponse;
      expect(echoed.body.length).toBe(body.length);
      // This hop answered the expectation: it is not passed upstream.
      expect(echoed.headers.expect).toBeUndefined();
    });

    it('the admin API and the dashboard get 100 Continue at once, as before', async () => {
      const headers = 'Content-Type: application/json\r\nContent-Length: 2\r\n';
      const result = await exchange(port, head('POST /api/auth/sign-in', headers), ['POST'], { afterInterim: '{}' });
      // Express may answer at once (the sign-in needs an Origin): the 100 comes first all the same.
      expect(result.interim.map((r) => r.status)).toEqual([100]);
    });
  });

  describe('an Upgrade other than WebSocket is ignored (RFC 9110 §7.8)', () => {
    const h2c = { connection: 'Upgrade, HTTP2-Settings', upgrade: 'h2c', 'http2-settings': 'AAMAAABkAARAAAAAAAIAAAAA' };

    it('serves /health as plain HTTP/1.1', async () => {
      const response = await rawRequest(base, 'GET', '/health', h2c);
      expect(response.status).toBe(200);
    });

    it('forwards an allowed proxy call as plain HTTP/1.1, without the offer', async () => {
      const response = await call('GET', '/api/v3/movie/7', h2c);
      expect(response.status).toBe(200);
      const echoed = response.json<EchoResponse>();
      expect(echoed.path).toBe('/api/v3/movie/7');
      expect(echoed.headers.upgrade).toBeUndefined();
      expect(echoed.headers['http2-settings']).toBeUndefined();
    });
  });

  describe('learning mode', () => {
    it('never forwards anything outside the API and feed prefixes', async () => {
      const until = new Date(t.clock.now() + 60 * 60 * 1000).toISOString();
      await admin.post(`/api/admin/v1/proxies/${proxy.id}/learning`, { until }).expect(200);
      try {
        for (const path of [
          '/initialize.json',
          '/initialize.js',
          '/backup/radarr_backup.zip',
          '/logfile/radarr.txt',
          '/signalr/messages/negotiate',
          '/',
          '/login',
        ]) {
          const before = upstream.requests.length;
          expect([path, (await call('GET', path)).status]).toEqual([path, 403]);
          expect(upstream.requests.length).toBe(before);
        }
        // What learning is for still works.
        expect((await call('GET', '/api/v3/history')).status).toBe(200);
        expect((await call('GET', '/feed/v3/calendar/radarr.ics')).status).toBe(200);
        const warnings = async () =>
          (
            (await admin.get(`/api/admin/v1/warnings?proxyId=${proxy.id}&limit=100`).expect(200))
              .body as Page<WarningDto>
          ).items;
        let items = await warnings();
        await eventually('the refusal of /initialize.json is a warning', async () => {
          items = await warnings();
          return items.some((w) => w.path === '/initialize.json');
        });
        expect(items.find((w) => w.path === '/initialize.json')?.status).toBe('open');
      } finally {
        await admin.delete(`/api/admin/v1/proxies/${proxy.id}/learning`).expect(200);
      }
    });
  });

  describe('what reaches the upstream and the client around a call (security round 3)', () => {
    const GRANTS = {
      '/signalr/messages': ['get'],
      '/api/v3/test/key': ['get'],
      '/api/v3/test/cookie': ['get'],
      '/api/v3/test/release': ['get'],
      '/api/v3/test/stream': ['get'],
      '/api/v3/movie': ['get', 'post'],
    };
    let keyed: FakeServarr;
    let scrubbed: ProxyConnectionDto;
    let unscrubbed: ProxyConnectionDto;
    const through = (
      target: ProxyConnectionDto,
      slug: string,
      path: string,
      headers: Record<string, string> = {},
      method = 'GET',
    ) => rawRequest(base, method, `/proxy/${slug}${path}`, { 'x-api-key': target.key, ...headers });

    beforeAll(async () => {
      let service: ServiceDto;
      ({ upstream: keyed, proxy: scrubbed, service } = await proxiedUpstream(admin, 'ranged', 'Ranged', GRANTS));
      await admin
        .put(`/api/admin/v1/proxies/${scrubbed.id}/config`, { overrides: GRANTS, active: true, scrub: true })
        .expect(200);
      ({ proxy: unscrubbed } = await seedProxy(admin, {
        service,
        app: { name: 'Unscrubbed', slug: 'unscrubbed' },
        config: { overrides: GRANTS, active: true, scrub: false },
      }));
    });
    afterAll(() => keyed.stop());

    describe('Range on a scrubbed proxy (item 8: two 206 halves held half of the key each)', () => {
      it('two Range requests never yield the halves of the key: each answer is 200, the whole body scrubbed', async () => {
        const secret = keyed.options.apiKey;
        const whole = `{"apiKey":"${secret}"}`;
        const middle = whole.indexOf(secret) + secret.length / 2;
        const answers = [
          await through(scrubbed, 'ranged', '/api/v3/test/key', { range: `bytes=0-${middle - 1}` }),
          await through(scrubbed, 'ranged', '/api/v3/test/key', { range: `bytes=${middle}-` }),
          await through(scrubbed, 'ranged', '/api/v3/test/key', { range: 'bytes=-20', 'if-range': '"key-1"' }),
        ];
        for (const answer of answers) {
          expect(answer.status).toBe(200);
          expect(answer.headers['content-range']).toBeUndefined();
          expect(answer.json()).toEqual({ apiKey: scrubbed.key });
          expect(answer.text).not.toContain(secret.slice(0, secret.length / 2));
          expect(answer.text).not.toContain(secret.slice(secret.length / 2));
        }
        const seen = keyed.requests.filter((r) => r.url.endsWith('/test/key')).slice(-3);
        expect(seen.map((r) => [r.headers.range, r.headers['if-range']])).toEqual(
          Array(3).fill([undefined, undefined]),
        );
      });

      it('a proxy that does not scrub still forwards Range (206)', async () => {
        const answer = await through(unscrubbed, 'unscrubbed', '/api/v3/test/key', { range: 'bytes=0-4' });
        expect(answer.status).toBe(206);
        expect(answer.text).toBe('{"api');
      });
    });

    describe('proxied answers do not act on the dashboard’s origin (item 10)', () => {
      const expectIsolated = (answer: RawResponse) => {
        expect(answer.headers['set-cookie']).toBeUndefined();
        expect(answer.headers['x-content-type-options']).toBe('nosniff');
        expect(answer.headers['content-security-policy']).toBe('sandbox');
      };

      it.each([
        ['scrubbed whole', 'ranged', '/api/v3/test/cookie'],
        ['streamed through the scrubber', 'ranged', '/api/v3/test/release'],
        ['passed as it is (not text)', 'ranged', '/api/v3/test/stream?bytes=10'],
        ['passed as it is (no scrubbing)', 'unscrubbed', '/api/v3/test/cookie'],
      ])('an answer %s: no Set-Cookie (arrbiter_session), nosniff, CSP sandbox', async (_how, slug, path) => {
        const answer = await through(slug === 'ranged' ? scrubbed : unscrubbed, slug, path);
        expect(answer.status).toBe(200);
        expectIsolated(answer);
      });

      it('the upstream’s cookie never reaches the client', async () => {
        const upstreamAnswer = await rawRequest(
          keyed.url.replace(/\/radarr$/, ''),
          'GET',
          '/radarr/api/v3/test/cookie',
          {
            'x-api-key': keyed.options.apiKey,
          },
        );
        expect(String(upstreamAnswer.headers['set-cookie'])).toContain('arrbiter_session=from-upstream');
        const answer = await through(scrubbed, 'ranged', '/api/v3/test/cookie');
        expect(JSON.stringify(answer.headers)).not.toContain('arrbiter_session');
      });

      it('a WebSocket upgrade’s answer: no Set-Cookie, nosniff, CSP sandbox', async () => {
        const answer = await new Promise<RawResponse>((resolve, reject) => {
          const req = httpRequest({
            host: '127.0.0.1',
            port,
            path: '/proxy/ranged/signalr/messages?transport=webSockets&cookie=1',
            headers: {
              'x-api-key': scrubbed.key,
              connection: 'Upgrade',
              upgrade: 'websocket',
              'sec-websocket-version': '13',
              'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
            },
          });
          req.on('upgrade', (res, socket) => {
            socket.destroy();
            resolve({ status: res.statusCode ?? 0, headers: res.headers, text: '', json: () => undefined as never });
          });
          req.on('response', (res) => reject(new Error(`answered ${res.statusCode}`)));
          req.on('error', reject);
          req.end();
        });
        expect(answer.status).toBe(101);
        expect(keyed.requests.at(-1)?.url).toContain('cookie=1');
        expectIsolated(answer);
      });

      it.each([
        ['401', '0'.repeat(32), '/api/v3/movie'],
        ['403', undefined, '/api/v3/config/host'],
        ['404 (no slug)', undefined, ''],
      ])('Arrbiter’s own %s on /proxy carries them too', async (status, badKey, path) => {
        const answer = await rawRequest(base, 'GET', `/proxy${path ? `/ranged${path}` : ''}`, {
          'x-api-key': badKey ?? scrubbed.key,
        });
        expect(answer.status).toBe(Number(status.slice(0, 3)));
        expectIsolated(answer);
      });
    });

    describe('method and URL override headers never reach the upstream (item 12)', () => {
      it.each(['x-http-method-override', 'x-http-method', 'x-method-override', 'x-original-url', 'x-rewrite-url'])(
        '%s is dropped',
        async (name) => {
          const value = name.endsWith('url') ? '/radarr/api/v3/config/host' : 'DELETE';
          const answer = await through(scrubbed, 'ranged', '/api/v3/movie', { [name]: value }, 'POST');
          expect(answer.status).toBe(200);
          const echoed = answer.json<EchoResponse>();
          expect(echoed.method).toBe('POST');
          expect(echoed.headers[name]).toBeUndefined();
          expect(keyed.requests.at(-1)?.headers[name]).toBeUndefined();
        },
      );
    });
  });
});
