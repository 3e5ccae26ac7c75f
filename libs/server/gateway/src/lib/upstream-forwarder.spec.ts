import {
  createServer,
  IncomingHttpHeaders,
  IncomingMessage,
  OutgoingHttpHeaders,
  request,
  Server,
  ServerResponse,
} from 'node:http';
import { AddressInfo, connect, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { Logger } from '@nestjs/common';
import { RouteMatcher } from '@arrbiter/server/catalog';
import { AppConfig, ExternalUrls, TrustedProxies } from '@arrbiter/server/config';
import { BodyMemory } from './body-memory';
import type { AccessLogFields, ProxyCall } from './proxy-context';
import type { ProxyState, ServiceState } from './proxy-registry';
import { ForwardOutcome, UpstreamForwarder } from './upstream-forwarder';

const UPSTREAM_KEY = 'upstream-key-0123456789abcdef';

/** A request as the upstream parsed it. */
interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  body: string;
}

/** What a client got back. */
interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

type Respond = (req: IncomingMessage, res: ServerResponse, received: Received) => void;

const servers: Server[] = [];

async function listen(server: Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

async function closeAll(): Promise<void> {
  await Promise.all(
    servers.splice(0).map(
      (server) =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    ),
  );
}

/** A loopback upstream that records every request it parsed and answers as `respond` says. */
async function upstream(
  respond: Respond = (_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('ok'),
) {
  const received: Received[] = [];
  const arrived: ((req: IncomingMessage) => void)[] = [];
  const server = createServer((req, res) => {
    arrived.splice(0).forEach((notify) => notify(req));
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const message: Received = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks).toString('latin1'),
      };
      received.push(message);
      respond(req, res, message);
    });
  });
  const port = await listen(server);
  /** Resolves with the next request as soon as its head has arrived. */
  const next = () => new Promise<IncomingMessage>((resolve) => arrived.push(resolve));
  return { server, received, next, origin: `http://127.0.0.1:${port}` };
}

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function serviceAt(origin: string, basePath = '/radarr', revision = 'r1'): ServiceState {
  return {
    id: 'svc-1',
    type: 'radarr',
    name: 'Radarr',
    origin,
    basePath,
    upstreamKey: UPSTREAM_KEY,
    catalog: new RouteMatcher(),
    revision,
  };
}

/** Where the guard and the interceptor would send a call. */
interface Forward {
  service: ServiceState;
  path?: string;
  query?: string;
  /** Whether the proxy scrubs (off unless a test says). */
  scrub?: boolean;
  /** The key the caller presented. */
  key?: string;
}

/** The call as `ProxyKeyGuard` and `AllowlistInterceptor` leave it on the request. */
function callOf(route: Forward, fields?: AccessLogFields): ProxyCall {
  const { service, path = '/api/v3/movie', query = '', scrub = false, key = 'client-proxy-key' } = route;
  const proxy = { id: 'proxy-1', appId: 'app-1', appSlug: 'notifiarr', service, scrub } as ProxyState;
  return { proxy, rawPath: path, query, key, path, fields, started: fields ? performance.now() : undefined };
}

/**
 * The gateway's side: a loopback server that hands every request to the forwarder (the proxy route,
 * past its guard and interceptor) and every upgrade to `upgrade`, recording each outcome the forwarder
 * writes into a call's access-line fields (`settled`; their `upstreamMs` in `upstreamMs`).
 */
async function front(forwarder: UpstreamForwarder, route: () => Forward) {
  const settled: ForwardOutcome[] = [];
  const upstreamMs: (number | undefined)[] = [];
  const waiting: ((outcome: ForwardOutcome) => void)[] = [];
  const server = createServer((req, res) => {
    let outcome: AccessLogFields['outcome'] = 'forwarded';
    const fields = { app: 'notifiarr', method: req.method ?? 'GET', path: '/api/v3/movie' } as AccessLogFields;
    Object.defineProperty(fields, 'outcome', {
      enumerable: true,
      get: () => outcome,
      set: (value: ForwardOutcome) => {
        outcome = value;
        settled.push(value);
        // The time is written with the outcome, right after it.
        queueMicrotask(() => {
          upstreamMs.push(fields.upstreamMs);
          waiting.splice(0).forEach((notify) => notify(value));
        });
      },
    });
    forwarder.forward(req, res, callOf(route(), fields));
  });
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    forwarder.upgrade(req, socket, head, callOf(route()));
  });
  const port = await listen(server);
  const nextSettle = () => new Promise<ForwardOutcome>((resolve) => waiting.push(resolve));
  return { port, settled, upstreamMs, nextSettle };
}

/** A client request on a connection of its own; `chunks` are written one by one. */
function send(
  port: number,
  options: { method?: string; path?: string; headers?: OutgoingHttpHeaders; chunks?: string[] } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path ?? '/proxy/notifiarr/api/v3/movie?apikey=client-key',
        headers: options.headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString() }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    for (const chunk of options.chunks ?? []) req.write(chunk);
    req.end();
  });
}

function forwarderWith(
  upstreamTimeoutMs = 30_000,
  bodies = new BodyMemory(null),
  settings: Partial<Pick<AppConfig, 'trustProxy' | 'publicUrl'>> = {},
): UpstreamForwarder {
  const config = { proxyName: 'arrbiter-test', upstreamTimeoutMs, port: 8080, ...settings } as AppConfig;
  const trusted = new TrustedProxies(settings.trustProxy ?? false);
  return new UpstreamForwarder(config, bodies, new ExternalUrls(config, trusted));
}

describe(UpstreamForwarder.name, () => {
  let forwarders: UpstreamForwarder[];
  let warn: jest.SpyInstance;

  const make = (...args: Parameters<typeof forwarderWith>) => {
    const forwarder = forwarderWith(...args);
    forwarders.push(forwarder);
    return forwarder;
  };

  beforeEach(() => {
    forwarders = [];
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });

  afterEach(async () => {
    for (const forwarder of forwarders) forwarder.onApplicationShutdown();
    await closeAll();
    jest.restoreAllMocks();
  });

  describe('the request sent upstream', () => {
    it("drops the hop's headers and those Connection names, but keeps Content-Length and the body", async () => {
      const up = await upstream();
      const { port, settled } = await front(make(), () => ({ service: serviceAt(up.origin) }));
      const answer = await send(port, {
        method: 'POST',
        headers: {
          Host: 'arrbiter.example',
          Connection: 'keep-alive, Content-Length, X-Hop-One, x-hop-two',
          'Content-Length': '5',
          'Content-Type': 'application/json',
          'X-Hop-One': '1',
          'X-Hop-Two': '2',
          'Keep-Alive': 'timeout=30',
          'Proxy-Connection': 'keep-alive',
          'Proxy-Authorization': 'Basic cHJveHk6cHJveHk=',
          TE: 'trailers',
          Upgrade: 'h2c',
          'HTTP2-Settings': 'AAMAAABkAAQAAP__',
          Expect: '100-continue',
          Accept: 'application/json',
          'X-Custom': 'kept',
        },
        chunks: ['hello'],
      });
      expect(answer.status).toBe(200);
      expect(settled).toEqual([]);

      expect(up.received).toHaveLength(1);
      const [received] = up.received;
      expect(received?.method).toBe('POST');
      expect(received?.body).toBe('hello');
      expect(received?.headers).toMatchObject({
        'content-length': '5',
        'content-type': 'application/json',
        accept: 'application/json',
        'x-custom': 'kept',
      });
      expect(received?.headers['transfer-encoding']).toBeUndefined();
      for (const name of [
        'x-hop-one',
        'x-hop-two',
        'keep-alive',
        'proxy-connection',
        'proxy-authorization',
        'te',
        'upgrade',
        'http2-settings',
        'expect',
      ])
        expect({ name, value: received?.headers[name] }).toEqual({ name, value: undefined });
      // The upstream connection is this hop's own.
      expect(received?.headers.connection).toBe('keep-alive');
    });

    it('keeps a chunked body framed even when Connection names Transfer-Encoding', async () => {
      const up = await upstream();
      const { port } = await front(make(), () => ({ service: serviceAt(up.origin), path: '/api/v3/movie/1' }));
      // A body that is a request of its own: unframed, the upstream would read it as a second request.
      const smuggled = 'GET /radarr/api/v3/config/host HTTP/1.1\r\nHost: x\r\n\r\n';
      const answer = await send(port, {
        method: 'DELETE',
        headers: {
          Connection: 'Transfer-Encoding, X-Hop',
          'Transfer-Encoding': 'chunked',
          'X-Hop': '1',
          // Announces trailers of this hop's chunked message (a header only a chunked request may carry).
          Trailer: 'X-Checksum',
        },
        chunks: [smuggled.slice(0, 20), smuggled.slice(20)],
      });
      expect(answer.status).toBe(200);
      expect(up.received.map((r) => [r.method, r.url, r.body])).toEqual([
        ['DELETE', '/radarr/api/v3/movie/1', smuggled],
      ]);
      expect(up.received[0]?.headers['transfer-encoding']).toBe('chunked');
      expect(up.received[0]?.headers['x-hop']).toBeUndefined();
      expect(up.received[0]?.headers.trailer).toBeUndefined();
    });

    it("replaces the client's credentials with the upstream's key", async () => {
      const up = await upstream();
      const { port } = await front(make(), () => ({ service: serviceAt(up.origin) }));
      await send(port, {
        headers: {
          'X-Api-Key': 'client-proxy-key',
          Authorization: 'Bearer client-token',
          Cookie: 'arrbiter_session=abc',
        },
      });
      const [received] = up.received;
      expect(received?.headers['x-api-key']).toBe(UPSTREAM_KEY);
      expect(received?.headers.authorization).toBeUndefined();
      expect(received?.headers.cookie).toBeUndefined();
      // Once, not the client's and the upstream's side by side.
      const names = (received?.rawHeaders ?? []).filter((_, i) => i % 2 === 0).map((n) => n.toLowerCase());
      expect(names.filter((n) => n === 'x-api-key')).toHaveLength(1);
      expect(JSON.stringify(received?.rawHeaders)).not.toContain('client-proxy-key');
    });

    it('appends to Via and X-Forwarded-For, and sets X-Forwarded-Proto and -Host over what the client sent', async () => {
      const up = await upstream();
      const { port } = await front(make(), () => ({ service: serviceAt(up.origin) }));
      await send(port, {
        headers: {
          Host: 'arrbiter.example:8443',
          Via: '1.0 corporate-proxy',
          'X-Forwarded-For': '203.0.113.9',
          'X-Forwarded-Proto': 'https',
          'X-Forwarded-Host': 'evil.example',
        },
      });
      expect(up.received[0]?.headers).toMatchObject({
        via: '1.0 corporate-proxy, 1.1 arrbiter-test',
        'x-forwarded-for': '203.0.113.9, 127.0.0.1',
        // Not a TRUST_PROXY peer: the scheme of its own connection.
        'x-forwarded-proto': 'http',
        'x-forwarded-host': 'arrbiter.example:8443',
        // changeOrigin: the upstream is addressed by its own name.
        host: new URL(up.origin).host,
      });

      await send(port, { headers: { Host: 'arrbiter.example' } });
      expect(up.received[1]?.headers).toMatchObject({
        via: '1.1 arrbiter-test',
        'x-forwarded-for': '127.0.0.1',
        'x-forwarded-proto': 'http',
        'x-forwarded-host': 'arrbiter.example',
      });
    });

    it("takes the scheme from a TRUST_PROXY peer's X-Forwarded-Proto, its first value", async () => {
      const up = await upstream();
      const { port } = await front(make(30_000, undefined, { trustProxy: ['loopback'] }), () => ({
        service: serviceAt(up.origin),
      }));
      await send(port, { headers: { 'X-Forwarded-Proto': 'HTTPS, http' } });
      await send(port, { headers: { 'X-Forwarded-Proto': 'gopher' } });
      await send(port);
      expect(up.received.map((received) => received.headers['x-forwarded-proto'])).toEqual(['https', 'http', 'http']);
    });

    it("never passes on the client's X-Forwarded-Host, even when there is no Host to put in its place", async () => {
      const up = await upstream();
      const { port } = await front(make(), () => ({ service: serviceAt(up.origin) }));
      // HTTP/1.0 needs no Host header.
      const answer = await new Promise<string>((resolve, reject) => {
        const chunks: Buffer[] = [];
        const socket = connect(port, '127.0.0.1', () =>
          socket.write('GET /proxy/notifiarr/api/v3/movie HTTP/1.0\r\nX-Forwarded-Host: evil.example\r\n\r\n'),
        );
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('end', () => resolve(Buffer.concat(chunks).toString()));
        socket.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1\.[01] 200 /);
      expect(up.received).toHaveLength(1);
      expect(up.received[0]?.headers['x-forwarded-host']).toBeUndefined();
    });

    it.each([
      ['/radarr', '/api/v3/movie/1', 'a=1&b=%20x', '/radarr/api/v3/movie/1?a=1&b=%20x'],
      ['', '/api/v3/system/status', '', '/api/v3/system/status'],
      [
        '/sub/dir',
        '/feed/v3/calendar/radarr.ics',
        'unmonitored=true',
        '/sub/dir/feed/v3/calendar/radarr.ics?unmonitored=true',
      ],
    ])('joins the URL base %j, the path %j and the query %j', async (basePath, path, query, expected) => {
      const up = await upstream();
      const { port } = await front(make(), () => ({ service: serviceAt(up.origin, basePath), path, query }));
      await send(port, { path: '/proxy/notifiarr/ignored?apikey=client-key&a=2' });
      expect(up.received.map((r) => r.url)).toEqual([expected]);
    });

    it("forwards to a service's new address once its revision changes", async () => {
      const first = await upstream();
      const second = await upstream();
      let service = serviceAt(first.origin);
      const { port } = await front(make(), () => ({ service }));
      await send(port);
      service = serviceAt(second.origin, '/radarr', 'r2');
      await send(port);
      expect([first.received.length, second.received.length]).toEqual([1, 1]);
    });
  });

  describe('the response', () => {
    it("drops the upstream's hop-by-hop headers and those its Connection names, but keeps Content-Length", async () => {
      const up = await upstream((_req, res) => {
        res.writeHead(201, {
          Connection: 'keep-alive, X-Resp-Hop, Content-Length',
          'Content-Length': '5',
          'X-Resp-Hop': 'secret',
          'Keep-Alive': 'timeout=99',
          'Proxy-Connection': 'keep-alive',
          'Proxy-Authenticate': 'Basic realm="upstream"',
          TE: 'trailers',
          Upgrade: 'h2c',
          'X-Other': 'kept',
        });
        res.end('hello');
      });
      const { port, settled } = await front(make(), () => ({ service: serviceAt(up.origin) }));
      const answer = await send(port);
      expect(answer).toMatchObject({ status: 201, body: 'hello' });
      expect(answer.headers['content-length']).toBe('5');
      expect(answer.headers['transfer-encoding']).toBeUndefined();
      expect(answer.headers['x-other']).toBe('kept');
      for (const name of ['x-resp-hop', 'proxy-connection', 'proxy-authenticate', 'te', 'upgrade'])
        expect({ name, value: answer.headers[name] }).toEqual({ name, value: undefined });
      expect(answer.headers['keep-alive']).not.toBe('timeout=99');
      expect(settled).toEqual([]);
    });
  });

  describe('scrubbing', () => {
    const CALLER_KEY = '0123456789abcdef0123456789abcdef';
    const PROXY_URL = 'https://arr.example.com/proxy/notifiarr';

    /** A fake Prowlarr whose answers carry its key and address, nested, escaped and encoded. */
    async function prowlarr(respond: (res: ServerResponse, base: string) => void) {
      const up = await upstream((_req, res) => respond(res, `${up.origin}/radarr`));
      const service = serviceAt(up.origin);
      // The proxy URL under PUBLIC_URL, with the caller's key in place of the upstream's.
      const forwarder = make(30_000, undefined, { publicUrl: new URL(PROXY_URL).origin });
      const { port } = await front(forwarder, () => ({ service, scrub: true, key: CALLER_KEY }));
      return { up, port };
    }

    /** As JSON text, with one address written as a JSON encoder that escapes slashes writes it. */
    const release = (base: string) =>
      JSON.stringify({
        downloadUrl: `${base}/12/download?apikey=${UPSTREAM_KEY}&link=x`,
        nested: { deeper: [{ link: `${base}/api/v1/indexer/12`, encoded: encodeURIComponent(`${base}/x`) }] },
        escaped: 'ESCAPED',
      }).replace('"ESCAPED"', `"${`${base}/y`.replaceAll('/', '\\/')}"`);

    it('replaces them in a small body, which keeps an exact Content-Length, and in Location', async () => {
      const { up, port } = await prowlarr((res, base) => {
        const body = release(base);
        res.writeHead(200, {
          'Content-Type': 'application/json; charset=utf-8',
          'Content-Length': Buffer.byteLength(body),
          Location: `${base}/login`,
        });
        res.end(body);
      });
      const answer = await send(port);
      expect(up.received[0].headers['accept-encoding']).toBe('identity');
      expect(answer.body).not.toContain(UPSTREAM_KEY);
      expect(answer.body).not.toContain('127.0.0.1');
      expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
      expect(answer.headers['transfer-encoding']).toBeUndefined();
      expect(answer.headers.location).toBe(`${PROXY_URL}/login`);
      const parsed = JSON.parse(answer.body);
      expect(parsed.downloadUrl).toBe(`${PROXY_URL}/12/download?apikey=${CALLER_KEY}&link=x`);
      expect(parsed.nested.deeper[0].link).toBe(`${PROXY_URL}/api/v1/indexer/12`);
      expect(decodeURIComponent(parsed.nested.deeper[0].encoded)).toBe(`${PROXY_URL}/x`);
      expect(parsed.escaped).toBe(`${PROXY_URL}/y`);
    });

    it('streams a large chunked body through it, matches split across chunks included', async () => {
      const { port } = await prowlarr((res, base) => {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        const text = `[${Array.from({ length: 2000 }, () => release(base)).join(',')}]`;
        // Odd-sized writes, so that matches fall across chunk boundaries.
        for (let i = 0; i < text.length; i += 997) res.write(text.slice(i, i + 997));
        res.end();
      });
      const answer = await send(port);
      expect(answer.headers['transfer-encoding']).toBe('chunked');
      expect(answer.body).not.toContain(UPSTREAM_KEY);
      expect(answer.body).not.toContain('127.0.0.1');
      const parsed = JSON.parse(answer.body) as { downloadUrl: string }[];
      expect(parsed).toHaveLength(2000);
      expect(parsed.every((r) => r.downloadUrl === `${PROXY_URL}/12/download?apikey=${CALLER_KEY}&link=x`)).toBe(true);
    });

    it('decodes a body that comes gzip-compressed anyway', async () => {
      const { port } = await prowlarr((res, base) => {
        const gz = gzipSync(release(base));
        res.writeHead(200, {
          'Content-Type': 'application/json',
          'Content-Encoding': 'gzip',
          'Content-Length': gz.length,
        });
        res.end(gz);
      });
      const answer = await send(port);
      expect(answer.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(answer.body).downloadUrl).toBe(`${PROXY_URL}/12/download?apikey=${CALLER_KEY}&link=x`);
    });

    it('leaves binary bodies as they are', async () => {
      const image = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47]), Buffer.from(UPSTREAM_KEY)]);
      const { port } = await prowlarr((res) => {
        res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': image.length });
        res.end(image);
      });
      const answer = await send(port);
      expect(answer.body).toContain(UPSTREAM_KEY);
      expect(Number(answer.headers['content-length'])).toBe(image.length);
    });

    it('names the proxy under the address each call reached it at, without PUBLIC_URL', async () => {
      const up = await upstream((_req, res) => res.writeHead(302, { Location: `${up.origin}/radarr/login` }).end());
      const service = serviceAt(up.origin);
      const { port } = await front(make(), () => ({ service, scrub: true, key: CALLER_KEY }));
      const first = await send(port, { headers: { Host: 'nas.local:18080' } });
      const second = await send(port, { headers: { Host: 'arr.example.net' } });
      expect([first.headers.location, second.headers.location]).toEqual([
        'http://nas.local:18080/proxy/notifiarr/login',
        'http://arr.example.net/proxy/notifiarr/login',
      ]);
    });

    it('passes the answer of a proxy that opts out as it is, and asks for it as the client did', async () => {
      const up = await upstream((_req, res) => {
        const body = release(`${up.origin}/radarr`);
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
        res.end(body);
      });
      const { port } = await front(make(), () => ({ service: serviceAt(up.origin), scrub: false, key: CALLER_KEY }));
      const answer = await send(port, { headers: { 'Accept-Encoding': 'gzip', Range: 'bytes=0-9' } });
      expect(up.received[0].headers).toMatchObject({ 'accept-encoding': 'gzip', range: 'bytes=0-9' });
      expect(answer.body).toContain(UPSTREAM_KEY);
      expect(answer.body).toContain(up.origin);
    });
  });

  describe('failures', () => {
    it('answers 502 with a problem document when the upstream cannot be reached', async () => {
      const port = await closedPort();
      const gateway = await front(make(), () => ({ service: serviceAt(`http://127.0.0.1:${port}`) }));
      const answer = await send(gateway.port);
      expect(answer.status).toBe(502);
      expect(answer.headers['content-type']).toBe('application/problem+json');
      expect(JSON.parse(answer.body)).toEqual({
        type: 'about:blank',
        title: 'Bad Gateway',
        status: 502,
        detail: 'The upstream cannot be reached (ECONNREFUSED)',
      });
      expect(gateway.settled).toEqual(['upstream-unreachable']);
      expect(gateway.upstreamMs).toEqual([expect.any(Number)]);
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('ECONNREFUSED'));
    });

    it('answers 504 with a problem document when the upstream does not answer in time', async () => {
      const up = await upstream(() => undefined);
      const gateway = await front(make(5), () => ({ service: serviceAt(up.origin) }));
      const answer = await send(gateway.port);
      expect(answer.status).toBe(504);
      expect(answer.headers['content-type']).toBe('application/problem+json');
      expect(JSON.parse(answer.body)).toEqual({
        type: 'about:blank',
        title: 'Gateway Timeout',
        status: 504,
        detail: 'The upstream did not answer within 5 ms',
      });
      expect(gateway.settled).toEqual(['upstream-timeout']);
    });

    it('cuts a response already under way when the upstream stalls, and settles it as timed out', async () => {
      const up = await upstream((_req, res) => {
        res.writeHead(200, { 'Content-Type': 'text/plain' });
        res.write('part of the body');
      });
      // Long enough for the head to arrive first on a busy machine: only the stalled body times out.
      const gateway = await front(make(500), () => ({ service: serviceAt(up.origin) }));
      await expect(send(gateway.port)).rejects.toThrow();
      expect(gateway.settled).toEqual(['upstream-timeout']);
    });

    it('settles as forwarded, and abandons the upstream request, when the client goes away', async () => {
      const up = await upstream(() => undefined);
      const gateway = await front(make(), () => ({ service: serviceAt(up.origin) }));
      const arrived = up.next();
      const settle = gateway.nextSettle();
      const client = request({ host: '127.0.0.1', port: gateway.port, path: '/x', agent: false });
      client.on('error', () => undefined);
      client.end();
      const upstreamRequest = await arrived;
      const abandoned = new Promise<void>((resolve) => upstreamRequest.socket.once('close', () => resolve()));
      client.destroy();
      await expect(settle).resolves.toBe('forwarded');
      await abandoned;
      expect(gateway.settled).toEqual(['forwarded']);
    });
  });

  describe('WebSocket upgrades', () => {
    it("forwards an upgrade with its Connection and Upgrade headers and the upstream's key, then relays both ways", async () => {
      const up = await upstream((_req, res) => res.writeHead(400).end('not an upgrade'));
      const upgrades: Received[] = [];
      up.server.on('upgrade', (req: IncomingMessage, socket: Socket) => {
        upgrades.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, rawHeaders: [], body: '' });
        socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
        socket.pipe(socket);
      });
      const gateway = await front(make(30_000, undefined, { trustProxy: true }), () => ({
        service: serviceAt(up.origin),
        path: '/signalr/messages',
        query: 'access_token=x',
      }));

      const echoed = await new Promise<string>((resolve, reject) => {
        const client = request({
          host: '127.0.0.1',
          port: gateway.port,
          path: '/proxy/notifiarr/signalr/messages',
          agent: false,
          headers: {
            Connection: 'Upgrade',
            Upgrade: 'websocket',
            'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
            'Sec-WebSocket-Version': '13',
            'X-Api-Key': 'client-proxy-key',
            'X-Forwarded-Proto': 'https',
          },
        });
        client.on('upgrade', (_res, socket: Socket) => {
          socket.once('data', (data: Buffer) => {
            resolve(data.toString());
            socket.destroy();
          });
          socket.write('ping');
        });
        client.on('response', (res) => reject(new Error(`answered ${res.statusCode} instead of upgrading`)));
        client.on('error', reject);
        client.end();
      });

      expect(echoed).toBe('ping');
      expect(upgrades).toHaveLength(1);
      expect(upgrades[0]?.url).toBe('/radarr/signalr/messages?access_token=x');
      expect(upgrades[0]?.headers).toMatchObject({
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
        'x-api-key': UPSTREAM_KEY,
        via: '1.1 arrbiter-test',
        'x-forwarded-proto': 'https',
      });
    });
  });

  describe('streamed bodies', () => {
    it('counts request and response bodies of unknown length towards the memory policy', async () => {
      const collect = jest.fn();
      const bodies = new BodyMemory(collect, 1);
      const up = await upstream((req, res) => {
        if (req.method === 'GET') {
          res.writeHead(200, { 'Content-Type': 'text/plain' });
          res.write('a chunked ');
          res.end('response');
        } else res.writeHead(204).end();
      });
      const { port } = await front(make(30_000, bodies), () => ({ service: serviceAt(up.origin) }));

      const answer = await send(port);
      expect(answer.headers['transfer-encoding']).toBe('chunked');
      const afterResponse = collect.mock.calls.length;
      expect(afterResponse).toBeGreaterThan(0);

      await send(port, {
        method: 'POST',
        headers: { 'Transfer-Encoding': 'chunked' },
        chunks: ['a chunked ', 'request'],
      });
      expect(up.received[1]?.body).toBe('a chunked request');
      expect(collect.mock.calls.length).toBeGreaterThan(afterResponse);
    });

    it('says at start-up when it cannot bound the memory of streamed bodies', () => {
      make();
      expect(warn).toHaveBeenCalledWith(expect.stringContaining('--expose-gc'));
      warn.mockClear();
      make(30_000, new BodyMemory(jest.fn()));
      expect(warn).not.toHaveBeenCalled();
    });
  });
});
