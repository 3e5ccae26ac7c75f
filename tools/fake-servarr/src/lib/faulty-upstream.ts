import { randomBytes } from 'node:crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import { AddressInfo, Socket } from 'node:net';
import { fakeOpenApi } from './openapi';
import { sendJson } from './fake-servarr';

/** What the faulty upstream has done so far, for tests to check that a fault really happened. */
export interface FaultyUpstreamCounters {
  /** Requests to `/api/v3/fault/*`. */
  faults: number;
  /** Body bytes handed to sockets by the fault endpoints. */
  bodyBytes: number;
  /** Connections the upstream reset (RST) or closed under a client that may reuse them. */
  socketsCut: number;
  /** Requests still held open (stalled) right now. */
  stalled: number;
}

/**
 * A Servarr-like upstream that misbehaves on request. It answers discovery like Radarr (`/api`,
 * `/api/v3/system/status`, `/api/v3/openapi.json`) so that it can be registered as a service; every
 * other call must carry its key (`X-Api-Key`). The faults, under `/api/v3/fault/`:
 *
 * - `reset?after=N&type=json|binary&length=L`: a 200 head declaring `L` bytes (default 1 MiB), `N` bytes
 *   of body, then a TCP reset;
 * - `reset-before-head`: a TCP reset before any byte of answer;
 * - `stall-head`: reads the request and never answers;
 * - `stall-body?after=N&type=&length=L`: a 200 head declaring `L` bytes and `N` bytes, then nothing, the
 *   connection left open;
 * - `huge-head?bytes=N`: a 200 whose head carries one header of `N` bytes (default 100 KiB);
 * - `close-after`: a small JSON answer, then the keep-alive connection closed at once, without
 *   `Connection: close` (a server whose idle time-out is zero: the client's pool may reuse it);
 * - `big?bytes=N&type=`: `N` bytes with their `Content-Length`, written as fast as the client reads.
 *
 * `type=json` sends `application/json` (read by the proxy's scrubber), `binary` (the default)
 * `application/octet-stream` (passed through).
 */
export class FaultyUpstream {
  readonly counters: FaultyUpstreamCounters = { faults: 0, bodyBytes: 0, socketsCut: 0, stalled: 0 };
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: Server,
    readonly apiKey: string,
  ) {}

  static async start(options: { apiKey?: string } = {}): Promise<FaultyUpstream> {
    const server = createServer({ maxHeaderSize: 16 * 1024 });
    server.keepAliveTimeout = 30_000;
    const upstream = new FaultyUpstream(server, options.apiKey ?? randomBytes(16).toString('hex'));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => upstream.handle(req, res));
    server.on('connection', (socket: Socket) => {
      upstream.sockets.add(socket);
      socket.on('close', () => upstream.sockets.delete(socket));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    return upstream;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** The base URL an admin registers. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Connections open to it right now (from the proxy's pool). */
  get openSockets(): number {
    return this.sockets.size;
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((done) => this.server.close(() => done()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', 'http://upstream');
    const path = url.pathname.toLowerCase();
    if (path === '/api') return sendJson(res, 200, { current: 'v3', deprecated: [] });
    if (req.headers['x-api-key'] !== this.apiKey) return void res.writeHead(401).end();
    if (path === '/api/v3/system/status')
      return sendJson(res, 200, { appName: 'Radarr', instanceName: 'Faulty', version: '5.14.0', urlBase: '' });
    if (path === '/api/v3/openapi.json') return sendJson(res, 200, fakeOpenApi('v3', 'Radarr'));
    const fault = /^\/api\/v3\/fault\/([a-z-]+)$/.exec(path)?.[1];
    if (!fault) return sendJson(res, 404, { message: 'Not Found' });
    this.counters.faults += 1;
    const bytes = (name: string, fallback: number) => Number(url.searchParams.get(name) ?? fallback);
    const type = url.searchParams.get('type') === 'json' ? 'application/json' : 'application/octet-stream';
    // The request body (if any) is read and ignored, so that the answer is the only thing on the wire.
    req.resume();
    switch (fault) {
      case 'reset':
        return this.resetAfter(res, type, bytes('after', 64 * 1024), bytes('length', 1024 * 1024));
      case 'reset-before-head':
        this.counters.socketsCut += 1;
        return void req.socket.resetAndDestroy();
      case 'stall-head':
        return this.stall(res);
      case 'stall-body':
        res.writeHead(200, { 'Content-Type': type, 'Content-Length': String(bytes('length', 1024 * 1024)) });
        this.write(res, type, bytes('after', 1024));
        return this.stall(res);
      case 'huge-head':
        res.writeHead(200, { 'Content-Type': 'application/json', 'X-Padding': 'p'.repeat(bytes('bytes', 100 * 1024)) });
        return void res.end('{}');
      case 'close-after':
        res.on('finish', () => {
          this.counters.socketsCut += 1;
          res.socket?.destroy();
        });
        return sendJson(res, 200, { ok: true });
      case 'big':
        return this.big(res, type, bytes('bytes', 1024 * 1024));
      default:
        return sendJson(res, 404, { message: `No fault ${fault}` });
    }
  }

  /** Holds the request open until the client goes away. */
  private stall(res: ServerResponse): void {
    this.counters.stalled += 1;
    res.once('close', () => (this.counters.stalled -= 1));
  }

  private resetAfter(res: ServerResponse, type: string, after: number, length: number): void {
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': String(length) });
    // Once the head and the first bytes have left, the connection is reset (RST, not a clean FIN).
    res.write(this.filler(type, after), () => {
      this.counters.socketsCut += 1;
      setTimeout(() => res.socket?.resetAndDestroy(), 20);
    });
    this.counters.bodyBytes += after;
  }

  /** Writes `count` bytes of filler (JSON-looking text, or `a`s). */
  private write(res: ServerResponse, type: string, count: number): void {
    res.write(this.filler(type, count));
    this.counters.bodyBytes += count;
  }

  private filler(type: string, count: number): Buffer {
    if (type !== 'application/json') return Buffer.alloc(count, 0x61);
    const record = Buffer.from('{"title":"A movie","year":2024,"monitored":true},');
    const out = Buffer.alloc(count, 0x20);
    out[0] = 0x5b; // '['
    for (let at = 1; at + record.length < count; at += record.length) record.copy(out, at);
    return out;
  }

  /** `size` bytes with their length, in 64 KiB writes that wait for the client (back-pressure). */
  private big(res: ServerResponse, type: string, size: number): void {
    res.writeHead(200, { 'Content-Type': type, 'Content-Length': String(size) });
    const chunk = this.filler(type, 64 * 1024);
    let left = size;
    const pump = (): void => {
      while (left > 0) {
        const part = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= part.length;
        this.counters.bodyBytes += part.length;
        if (!res.write(part)) {
          res.once('drain', pump);
          return;
        }
      }
      res.end();
    };
    res.once('close', () => (left = 0));
    pump();
  }
}
