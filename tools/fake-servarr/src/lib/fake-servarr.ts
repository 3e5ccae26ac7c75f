import { createHash, randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { gzipSync } from 'node:zlib';
import { fakeOpenApi } from './openapi';

export interface FakeServarrOptions {
  /** Service type, lower case (`radarr`): `appName` is its capitalised form. */
  type?: string;
  instanceName?: string;
  apiKey?: string;
  /** URL base, e.g. `/radarr` (empty for none). */
  urlBase?: string;
  current?: string;
  deprecated?: string[];
  version?: string;
  /** Serve `/api/{v}/openapi.json` (default true). */
  openapi?: boolean;
  port?: number;
  host?: string;
  /** Keep every request in `requests` (default true; a long benchmark would hold millions). */
  record?: boolean;
  /**
   * Answer an authenticated `GET /api/{v}/…` it would otherwise echo with a JSON body of about this many
   * bytes, the same whoever asks, as Servarr answers a resource (default 0: echo). The benchmark's
   * upstream: an echo grows with the headers a proxy adds and costs the upstream more to build, so it
   * would charge a proxy that adds headers twice.
   */
  resourceBytes?: number;
}

export interface RecordedRequest {
  method: string;
  /** The raw request target (path and query) as received. */
  url: string;
  headers: IncomingMessage['headers'];
}

/** What the fake echoes for any request it does not otherwise handle. */
export interface EchoResponse {
  method: string;
  url: string;
  path: string;
  query: string;
  headers: IncomingMessage['headers'];
  body: { length: number; sha256: string };
}

/**
 * A stand-in for a Servarr instance (Sonarr, Radarr…): authenticates like Servarr (an `apikey` query
 * parameter in any case first, then `X-Api-Key`, then `Authorization: Bearer`), honours a URL base,
 * answers `/api`, `/api/{v}/system/status`, `/ping` and `/api/{v}/openapi.json`, has test endpoints
 * (`test/stream?bytes=`, `test/slow?ms=` for GET or POST, `test/status/{code}`, `test/key` honouring
 * `Range`, `test/cookie` setting cookies), and echoes everything else.
 */
export class FakeServarr {
  readonly requests: RecordedRequest[] = [];
  /** Bytes the `test/stream` endpoint has handed to its sockets so far (back-pressure shows here). */
  streamedBytes = 0;
  private readonly sockets = new Set<Socket>();
  /** `test/json` bodies by size. */
  private readonly bodies = new Map<number, Buffer>();

  private constructor(
    private readonly server: Server,
    readonly options: Required<FakeServarrOptions>,
  ) {}

  static async start(options: FakeServarrOptions = {}): Promise<FakeServarr> {
    const type = options.type ?? 'radarr';
    const resolved: Required<FakeServarrOptions> = {
      type,
      instanceName: options.instanceName ?? type[0].toUpperCase() + type.slice(1),
      apiKey: options.apiKey ?? randomBytes(16).toString('hex'),
      urlBase: (options.urlBase ?? '').replace(/\/+$/, ''),
      current: options.current ?? 'v3',
      deprecated: options.deprecated ?? [],
      version: options.version ?? '5.14.0.9383',
      openapi: options.openapi ?? true,
      port: options.port ?? 0,
      host: options.host ?? '127.0.0.1',
      record: options.record ?? true,
      resourceBytes: options.resourceBytes ?? 0,
    };
    const server = createServer();
    server.keepAliveTimeout = 30_000;
    const fake = new FakeServarr(server, resolved);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => fake.handle(req, res));
    server.on('upgrade', (req: IncomingMessage, socket: Socket) => fake.upgrade(req, socket));
    server.on('connection', (socket: Socket) => {
      fake.sockets.add(socket);
      socket.on('close', () => fake.sockets.delete(socket));
    });
    await new Promise<void>((done) => server.listen(resolved.port, resolved.host, done));
    return fake;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The base URL an admin registers: origin plus URL base. */
  get url(): string {
    return `http://${this.options.host}:${this.port}${this.options.urlBase}`;
  }

  get appName(): string {
    return this.options.type[0].toUpperCase() + this.options.type.slice(1);
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((done) => this.server.close(() => done()));
  }

  /** WebSocket-style upgrades (SignalR): authenticated like any call, then an echo of the raw bytes. */
  private upgrade(req: IncomingMessage, socket: Socket): void {
    const url = req.url ?? '/';
    if (this.options.record) this.requests.push({ method: req.method ?? 'GET', url, headers: req.headers });
    const q = url.indexOf('?');
    if (!this.authorised(req, new URLSearchParams(q < 0 ? '' : url.slice(q + 1)))) {
      socket.end('HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    // `cookie=1`: the answer sets a cookie, as a hostile upstream would.
    const cookie = url.includes('cookie=1') ? 'Set-Cookie: arrbiter_session=from-upstream; Path=/\r\n' : '';
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n${cookie}\r\n`);
    socket.pipe(socket);
  }

  private authorised(req: IncomingMessage, query: URLSearchParams): boolean {
    for (const [name, value] of query) if (name.toLowerCase() === 'apikey') return value === this.options.apiKey;
    // SignalR clients send the key as access_token, which Servarr accepts.
    for (const [name, value] of query) if (name.toLowerCase() === 'access_token') return value === this.options.apiKey;
    const header = req.headers['x-api-key'];
    if (typeof header === 'string') return header === this.options.apiKey;
    const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '');
    return bearer ? bearer[1] === this.options.apiKey : false;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? '/';
    if (this.options.record) this.requests.push({ method: req.method ?? 'GET', url, headers: req.headers });
    const q = url.indexOf('?');
    const rawPath = q < 0 ? url : url.slice(0, q);
    const rawQuery = q < 0 ? '' : url.slice(q + 1);
    const query = new URLSearchParams(rawQuery);
    const base = this.options.urlBase;
    if (base && !rawPath.toLowerCase().startsWith(base.toLowerCase()))
      return this.json(res, 404, { message: 'Not Found' });
    const path = rawPath.slice(base.length) || '/';
    const lower = path.toLowerCase();

    if (lower === '/ping') return this.json(res, 200, { status: 'OK' });
    if (lower === '/api' || lower === '/api/') {
      return this.json(res, 200, { current: this.options.current, deprecated: this.options.deprecated });
    }
    if (lower === '/signalr/messages' || lower.startsWith('/signalr/messages/'))
      return this.signalr(req, res, lower, query);
    if (!lower.startsWith('/api/')) return this.echo(req, res, url, path, rawQuery);
    if (!this.authorised(req, query)) {
      res.writeHead(401).end();
      return;
    }
    const match = /^\/api\/(v\d+)(\/.*)?$/.exec(lower);
    const version = match?.[1];
    const rest = match?.[2] ?? '';
    const versions = [this.options.current, ...this.options.deprecated];
    if (version && versions.includes(version)) {
      if (rest === '/system/status') {
        return this.json(res, 200, {
          appName: this.appName,
          instanceName: this.options.instanceName,
          version: this.options.version,
          urlBase: base,
          isProduction: true,
        });
      }
      if (rest === '/openapi.json' && this.options.openapi)
        return this.json(res, 200, fakeOpenApi(version, this.appName));
      if (rest === '/test/stream') return this.stream(res, Number(query.get('bytes') ?? 0));
      if (rest === '/test/release') return this.release(res, query.get('gzip') === '1');
      if (rest === '/test/json') return this.jsonOfSize(res, Number(query.get('bytes') ?? 1024));
      if (rest === '/test/key') return this.keyInText(req, res);
      if (rest === '/test/cookie') {
        res.setHeader('Set-Cookie', ['arrbiter_session=from-upstream; Path=/; HttpOnly', 'upstream=1; Path=/']);
        return this.json(res, 200, { cookie: 'set' });
      }
      if (rest === '/test/slow') {
        const timer = setTimeout(
          () => this.json(res, 200, { slept: Number(query.get('ms') ?? 0) }),
          Number(query.get('ms') ?? 0),
        );
        res.on('close', () => clearTimeout(timer));
        return;
      }
      const status = /^\/test\/status\/(\d{3})$/.exec(rest);
      if (status) {
        res.setHeader('X-Upstream', 'fake-servarr');
        return this.json(res, Number(status[1]), { message: `status ${status[1]} from upstream` });
      }
      if (this.options.resourceBytes > 0 && req.method === 'GET')
        return this.jsonOfSize(res, this.options.resourceBytes);
    }
    return this.echo(req, res, url, path, rawQuery);
  }

  private echo(req: IncomingMessage, res: ServerResponse, url: string, path: string, query: string): void {
    const hash = createHash('sha256');
    let length = 0;
    req.on('data', (chunk: Buffer) => {
      length += chunk.length;
      hash.update(chunk);
    });
    req.on('end', () => {
      const body: EchoResponse = {
        method: req.method ?? 'GET',
        url,
        path,
        query,
        headers: req.headers,
        body: { length, sha256: hash.digest('hex') },
      };
      this.json(res, 200, body);
    });
  }

  /**
   * Servarr's SignalR hub, `/signalr/messages`: negotiate (POST `…/negotiate`), then server-sent events
   * (GET with `Accept: text/event-stream`: one message at once, the stream left open), long polling
   * (GET: one message) and sends (POST). WebSockets go through `upgrade`. Every message is a record
   * separated by `\x1e`, as SignalR's JSON protocol writes it.
   */
  private signalr(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): void {
    if (!this.authorised(req, query)) {
      res.writeHead(401).end();
      return;
    }
    const message = `${JSON.stringify({ type: 1, target: 'receiveMessage', arguments: [{ name: 'version' }] })}\x1e`;
    if (path.endsWith('/negotiate') && req.method === 'POST')
      return this.json(res, 200, {
        negotiateVersion: 1,
        connectionId: 'conn-1',
        connectionToken: 'token-1',
        availableTransports: ['WebSockets', 'ServerSentEvents', 'LongPolling'].map((transport) => ({
          transport,
          transferFormats: ['Text'],
        })),
      });
    if (req.method === 'POST') {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'Content-Type': 'text/plain' }).end());
      return;
    }
    if ((req.headers.accept ?? '').includes('text/event-stream')) {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      res.write(`data: ${message}\r\n\r\n`);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end(message);
  }

  /**
   * A JSON list of movie-like records of about `bytes` bytes (with its length, like Servarr's answers),
   * built once per size: the bench's 1 KB and 1 MB bodies for the scrubber's cost.
   */
  private jsonOfSize(res: ServerResponse, bytes: number): void {
    let body = this.bodies.get(bytes);
    if (!body) {
      const records: unknown[] = [];
      let length = 2;
      for (let id = 1; length < bytes; id += 1) {
        const record = {
          id,
          title: `Movie ${id}`,
          year: 2000 + (id % 25),
          monitored: id % 2 === 0,
          path: `/movies/Movie ${id}`,
        };
        length += JSON.stringify(record).length + 1;
        records.push(record);
      }
      body = Buffer.from(JSON.stringify(records));
      if (this.bodies.size < 16) this.bodies.set(bytes, body);
    }
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
    res.end(body);
  }

  /**
   * A search result as Prowlarr writes it, with this instance's key and address in nested fields, one
   * address with JSON-escaped slashes and one percent-encoded; sent in small pieces (matches fall
   * across chunks), or gzip-compressed (`gzip`) whatever the request accepted.
   */
  private release(res: ServerResponse, gzip: boolean): void {
    const base = this.url;
    const key = this.options.apiKey;
    const text = JSON.stringify([
      {
        guid: 'release-12',
        downloadUrl: `${base}/12/download?apikey=${key}&link=abc`,
        indexer: { fields: [{ name: 'apiKey', value: key }], baseUrl: 'ESCAPED', redirect: encodeURIComponent(base) },
      },
    ]).replace('"ESCAPED"', `"${base.replaceAll('/', '\\/')}"`);
    if (gzip) {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' });
      res.end(gzipSync(text));
      return;
    }
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8' });
    let at = 0;
    const next = (): void => {
      if (at >= text.length) return void res.end();
      res.write(text.slice(at, (at += 7)));
      setImmediate(next);
    };
    next();
  }

  /**
   * A text body holding this instance's key, served as a file is: `Accept-Ranges`, an `ETag`, one
   * `Range` of bytes answered 206 (with `If-Range` naming the ETag, or without `If-Range`).
   */
  private keyInText(req: IncomingMessage, res: ServerResponse): void {
    const body = Buffer.from(`{"apiKey":"${this.options.apiKey}"}`);
    const etag = '"key-1"';
    const range = /^bytes=(\d*)-(\d*)$/.exec(req.headers.range ?? '');
    const ifRange = req.headers['if-range'];
    const headers = { 'Content-Type': 'application/json', 'Accept-Ranges': 'bytes', ETag: etag };
    if (range && (ifRange === undefined || ifRange === etag) && (range[1] !== '' || range[2] !== '')) {
      const last = body.length - 1;
      const start = range[1] === '' ? Math.max(0, body.length - Number(range[2])) : Number(range[1]);
      const end = range[1] === '' || range[2] === '' ? last : Math.min(Number(range[2]), last);
      if (start <= end) {
        const part = body.subarray(start, end + 1);
        res.writeHead(206, {
          ...headers,
          'Content-Range': `bytes ${start}-${end}/${body.length}`,
          'Content-Length': part.length,
        });
        res.end(part);
        return;
      }
    }
    res.writeHead(200, { ...headers, 'Content-Length': body.length });
    res.end(body);
  }

  /** Streams `bytes` bytes in 64 KiB chunks, respecting back-pressure. */
  private stream(res: ServerResponse, bytes: number): void {
    res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': String(bytes) });
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    let left = bytes;
    const write = (): void => {
      while (left > 0) {
        const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= part.length;
        this.streamedBytes += part.length;
        if (!res.write(part)) {
          res.once('drain', write);
          return;
        }
      }
      res.end();
    };
    write();
  }

  private json(res: ServerResponse, status: number, body: unknown): void {
    sendJson(res, status, body);
  }
}

/** A JSON answer with its length, as Servarr sends them. */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}
