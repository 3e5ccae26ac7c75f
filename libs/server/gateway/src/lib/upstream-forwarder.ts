import { Agent as HttpAgent, ClientRequest, IncomingMessage, ServerResponse } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Socket } from 'node:net';
import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { ProblemDetails } from '@arrbiter/contracts';
import { AppConfig } from '@arrbiter/server/config';
import { createProxyMiddleware, RequestHandler } from 'http-proxy-middleware';
import { BodyMemory } from './body-memory';
import type { ServiceState } from './proxy-registry';

/** Request headers that belong to one hop and are never forwarded. */
const HOP_BY_HOP = [
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'upgrade',
];
/**
 * Client credentials that must never reach the upstream (`x-api-key` too: the handler's `headers`
 * option puts the upstream's own key in its place when the outgoing headers are built).
 */
const CLIENT_CREDENTIALS = ['authorization', 'cookie'];

/** How a forwarded request ended. */
export type ForwardOutcome = 'forwarded' | 'upstream-unreachable' | 'upstream-timeout';

interface Forwarding {
  /** The upstream path and query to request. */
  url: string;
  service: ServiceState;
  /** `http` or `https`, as the client reached Arrbiter (`X-Forwarded-Proto`). */
  protocol: string;
  timedOut: boolean;
  settle: (outcome: ForwardOutcome) => void;
}

const FORWARDING = Symbol('arrbiter.forwarding');
type ForwardedMessage = IncomingMessage & { [FORWARDING]?: Forwarding };

function problem(res: ServerResponse, status: number, title: string, detail: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body: ProblemDetails = { type: 'about:blank', title, status, detail };
  const text = JSON.stringify(body);
  res.writeHead(status, { 'Content-Type': 'application/problem+json', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * Forwards allowed requests with http-proxy-middleware: bodies stream both ways on keep-alive
 * connections, the upstream's key replaces the client's credentials, `Via` and `X-Forwarded-*` are
 * added, hop-by-hop headers dropped; 502 when the upstream cannot be reached, 504 when it is too slow.
 */
@Injectable()
export class UpstreamForwarder implements OnApplicationShutdown {
  private readonly logger = new Logger(UpstreamForwarder.name);
  private readonly httpAgent = new HttpAgent({ keepAlive: true, maxFreeSockets: 256, scheduling: 'lifo' });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true, maxFreeSockets: 256, scheduling: 'lifo' });
  private readonly middlewares = new Map<string, { revision: string; handler: RequestHandler }>();
  private readonly via: string;

  constructor(
    private readonly config: AppConfig,
    private readonly bodies: BodyMemory,
  ) {
    this.via = `1.1 ${config.proxyName}`;
    if (!bodies.enabled)
      this.logger.warn(
        'V8 collections cannot be requested: streamed bodies may hold up to ~100 MB until V8 frees them',
      );
  }

  /** After the HTTP server has finished its in-flight requests. */
  onApplicationShutdown(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  /**
   * Forwards one request. `settled` is called once with the outcome: when the upstream fails, or
   * synchronously from the response's first 'close' listener, so 'close' listeners added after this
   * call see the outcome.
   */
  forward(
    req: IncomingMessage,
    res: ServerResponse,
    service: ServiceState,
    path: string,
    query: string,
    protocol: string,
    settled: (outcome: ForwardOutcome) => void,
  ): void {
    let done = false;
    const forwarding: Forwarding = {
      url: `${service.basePath}${path}${query ? `?${query}` : ''}`,
      service,
      protocol,
      timedOut: false,
      settle: (outcome) => {
        if (done) return;
        done = true;
        settled(outcome);
      },
    };
    (req as ForwardedMessage)[FORWARDING] = forwarding;
    req.url = forwarding.url;
    res.once('close', () => forwarding.settle('forwarded'));
    void this.handlerFor(service)(req, res, () => undefined);
  }

  /** Forwards an allowed WebSocket upgrade. */
  upgrade(
    req: IncomingMessage,
    socket: Socket,
    head: Buffer,
    service: ServiceState,
    path: string,
    query: string,
    protocol: string,
  ): void {
    const forwarding: Forwarding = {
      url: `${service.basePath}${path}${query ? `?${query}` : ''}`,
      service,
      protocol,
      timedOut: false,
      settle: () => undefined,
    };
    (req as ForwardedMessage)[FORWARDING] = forwarding;
    req.url = forwarding.url;
    this.handlerFor(service).upgrade(req, socket, head);
  }

  private handlerFor(service: ServiceState): RequestHandler {
    const known = this.middlewares.get(service.id);
    if (known?.revision === service.revision) return known.handler;
    const secure = service.origin.startsWith('https:');
    const handler = createProxyMiddleware<IncomingMessage, ServerResponse>({
      // Parsed once here rather than on every request by http-proxy-middleware and httpxy.
      target: new URL(service.origin),
      headers: { 'x-api-key': service.upstreamKey },
      changeOrigin: true,
      xfwd: false,
      ws: false,
      agent: secure ? this.httpsAgent : this.httpAgent,
      ejectPlugins: true,
      plugins: [
        (server) => {
          server.on('proxyReq', (proxyReq: ClientRequest, req: IncomingMessage) =>
            this.onProxyReq(proxyReq, req as ForwardedMessage),
          );
          server.on('proxyReqWs', (proxyReq: ClientRequest, req: IncomingMessage) =>
            this.onProxyReq(proxyReq, req as ForwardedMessage),
          );
          server.on('proxyRes', (proxyRes: IncomingMessage) => {
            stripHopByHop(proxyRes.headers);
            this.bodies.watch(proxyRes);
          });
          server.on('error', (error: Error, req?: IncomingMessage, res?: ServerResponse | Socket) => {
            if (req && res) this.onError(error, req as ForwardedMessage, res);
          });
          server.on('econnreset', (_error: Error, req?: IncomingMessage) =>
            (req as ForwardedMessage | undefined)?.[FORWARDING]?.settle('forwarded'),
          );
        },
      ],
    });
    this.middlewares.set(service.id, { revision: service.revision, handler });
    return handler;
  }

  private onProxyReq(proxyReq: ClientRequest, req: ForwardedMessage): void {
    const forwarding = req[FORWARDING];
    if (!forwarding) {
      proxyReq.destroy(new Error('unexpected proxy request'));
      return;
    }
    const tokens = String(req.headers.connection ?? '')
      .split(',')
      .map((t) => t.trim().toLowerCase())
      .filter(Boolean);
    const upgrading = Boolean(req.headers.upgrade) && tokens.includes('upgrade');
    // The outgoing headers are a copy of the incoming ones: only those present need removing.
    const incoming = req.headers;
    for (const names of [HOP_BY_HOP, tokens, CLIENT_CREDENTIALS]) {
      for (const name of names) {
        if (incoming[name] === undefined || (upgrading && (name === 'upgrade' || name === 'connection'))) continue;
        proxyReq.removeHeader(name);
      }
    }
    const via = req.headers.via;
    proxyReq.setHeader('Via', via ? `${via}, ${this.via}` : this.via);
    const forwardedFor = req.headers['x-forwarded-for'];
    const client = req.socket.remoteAddress ?? '';
    proxyReq.setHeader('X-Forwarded-For', forwardedFor ? `${String(forwardedFor)}, ${client}` : client);
    proxyReq.setHeader('X-Forwarded-Proto', forwarding.protocol);
    if (req.headers.host) proxyReq.setHeader('X-Forwarded-Host', req.headers.host);
    // A WebSocket lives as long as its peers want: only ordinary requests have a response time-out.
    if (upgrading) return;
    // httpxy pipes the request body into proxyReq right after this event, in the same tick.
    if (hasBody(req)) this.bodies.watch(req);
    proxyReq.setTimeout(this.config.upstreamTimeoutMs, () => {
      forwarding.timedOut = true;
      proxyReq.destroy(new Error('upstream time-out'));
    });
  }

  private onError(error: Error, req: ForwardedMessage, res: ServerResponse | Socket): void {
    const forwarding = req[FORWARDING];
    const timedOut = forwarding?.timedOut ?? false;
    const code = (error as NodeJS.ErrnoException).code ?? error.message;
    this.logger.warn(`Upstream ${forwarding?.service.origin ?? '?'} ${timedOut ? 'timed out' : `failed: ${code}`}`);
    forwarding?.settle(timedOut ? 'upstream-timeout' : 'upstream-unreachable');
    if (!(res instanceof ServerResponse)) {
      res.destroy();
      return;
    }
    if (timedOut)
      problem(res, 504, 'Gateway Timeout', `The upstream did not answer within ${this.config.upstreamTimeoutMs} ms`);
    else problem(res, 502, 'Bad Gateway', `The upstream cannot be reached (${code})`);
  }
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
}

function stripHopByHop(headers: IncomingMessage['headers']): void {
  const tokens = String(headers.connection ?? '')
    .split(',')
    .map((t) => t.trim().toLowerCase());
  for (const name of ['keep-alive', 'proxy-connection', 'proxy-authenticate', 'te', 'trailer', 'upgrade', ...tokens]) {
    if (name && name !== 'connection' && name !== 'transfer-encoding') delete headers[name];
  }
}
