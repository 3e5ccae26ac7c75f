import { Agent as HttpAgent, ClientRequest, IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Socket } from 'node:net';
import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig } from '@arrbiter/server/config';
import { createProxyMiddleware, RequestHandler } from 'http-proxy-middleware';
import { BodyMemory } from './body-memory';
import { writeProblem } from './proxy-problem';
import type { ServiceState } from './proxy-registry';

/**
 * Request headers never copied as they came: those of one hop, the client's credentials (the handler's
 * `headers` option puts the upstream's own key in place of `x-api-key`), and those this hop rewrites.
 */
const NOT_COPIED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'upgrade',
  // An h2c offer's settings (RFC 7540 §3.2.1) and an expectation this hop has answered already.
  'http2-settings',
  'expect',
  'authorization',
  'cookie',
  'x-api-key',
  'via',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
]);

/**
 * The request's framing. Never dropped, even when the client names it in `Connection`: the upstream
 * request is framed by Node from the body Node parsed (Node has validated both headers and refuses a
 * request that has both or a malformed one). Dropped on the client's word, the body would reach the
 * upstream unframed and be read there as a request of its own (request smuggling).
 */
const FRAMING = new Set(['content-length', 'transfer-encoding']);

/** How a forwarded request ended. */
export type ForwardOutcome = 'forwarded' | 'upstream-unreachable' | 'upstream-timeout';

interface Forwarding {
  service: ServiceState;
  timedOut: boolean;
  settle: (outcome: ForwardOutcome) => void;
}

const FORWARDING = Symbol('arrbiter.forwarding');
type ForwardedMessage = IncomingMessage & { [FORWARDING]?: Forwarding };

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
        'Started without --expose-gc: streamed bodies may hold up to ~100 MB until V8 frees them (npm start sets it)',
      );
  }

  /** After the HTTP server has finished its in-flight requests. */
  onApplicationShutdown(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  /**
   * Forwards one request. `settled` is called at most once, when the forwarding ends before the
   * response closes: the upstream failed or timed out, or the client left ('forwarded'). A request it
   * is never called for was forwarded.
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
    this.prepare(req, service, path, query, protocol, false, (outcome) => {
      if (done) return;
      done = true;
      settled(outcome);
    });
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
    this.prepare(req, service, path, query, protocol, true, () => undefined);
    this.handlerFor(service).upgrade(req, socket, head);
  }

  /** Points the request at the upstream path and query, with the headers to send and its state. */
  private prepare(
    req: IncomingMessage,
    service: ServiceState,
    path: string,
    query: string,
    protocol: string,
    upgrade: boolean,
    settle: Forwarding['settle'],
  ): void {
    (req as ForwardedMessage)[FORWARDING] = { service, timedOut: false, settle };
    req.url = `${service.basePath}${path}${query ? `?${query}` : ''}`;
    req.headers = this.outgoingHeaders(req, protocol, upgrade);
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
          server.on('proxyRes', (proxyRes: IncomingMessage) => {
            stripHopByHop(proxyRes.headers);
            this.bodies.watch(proxyRes);
          });
          server.on('error', (error: Error, req?: IncomingMessage, res?: ServerResponse | Socket) => {
            if (req && res) this.onError(error, req as ForwardedMessage, res);
          });
          // The client went away: what reached the upstream was forwarded, nothing to answer.
          server.on('econnreset', (_error: Error, req?: IncomingMessage) =>
            (req as ForwardedMessage | undefined)?.[FORWARDING]?.settle('forwarded'),
          );
        },
      ],
    });
    this.middlewares.set(service.id, { revision: service.revision, handler });
    return handler;
  }

  /**
   * The headers to send upstream, built once and handed to http-proxy-middleware as the request's own
   * (it copies them into the upstream request): hop-by-hop headers, those the `Connection` header
   * names (but the framing) and the client's credentials dropped — but a WebSocket upgrade's
   * `Connection` and `Upgrade` — and `Via` and `X-Forwarded-*` added. Removing and setting headers on the upstream request instead
   * costs a validation and a slower header object per header, on every call (`npm run bench`).
   */
  private outgoingHeaders(req: IncomingMessage, protocol: string, upgrade: boolean): IncomingHttpHeaders {
    const incoming = req.headers;
    const connection = incoming.connection;
    // Names listed in `Connection` belong to this hop too (RFC 9110 §7.6.1).
    const listed =
      connection === undefined
        ? undefined
        : connection
            .toLowerCase()
            .split(',')
            .map((t) => t.trim());
    const outgoing: IncomingHttpHeaders = {};
    for (const name in incoming) {
      if (NOT_COPIED.has(name) || (listed?.includes(name) && !FRAMING.has(name))) continue;
      outgoing[name] = incoming[name];
    }
    if (upgrade) {
      outgoing.connection = connection;
      outgoing.upgrade = incoming.upgrade;
    }
    const via = incoming.via;
    outgoing.via = via ? `${via}, ${this.via}` : this.via;
    const forwardedFor = incoming['x-forwarded-for'];
    const client = req.socket.remoteAddress ?? '';
    outgoing['x-forwarded-for'] = forwardedFor ? `${forwardedFor}, ${client}` : client;
    outgoing['x-forwarded-proto'] = protocol;
    if (incoming.host) outgoing['x-forwarded-host'] = incoming.host;
    return outgoing;
  }

  private onProxyReq(proxyReq: ClientRequest, req: ForwardedMessage): void {
    const forwarding = req[FORWARDING];
    if (!forwarding) {
      proxyReq.destroy(new Error('unexpected proxy request'));
      return;
    }
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
    if (timedOut) writeProblem(res, 504, `The upstream did not answer within ${this.config.upstreamTimeoutMs} ms`);
    else writeProblem(res, 502, `The upstream cannot be reached (${code})`);
  }
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
}

/** Response headers of one hop; `Connection` itself stays (http-proxy-middleware sets it for the client). */
const RESPONSE_HOP_BY_HOP = ['keep-alive', 'proxy-connection', 'proxy-authenticate', 'te', 'trailer', 'upgrade'];

function stripHopByHop(headers: IncomingMessage['headers']): void {
  const connection = headers.connection;
  if (connection !== undefined)
    for (const token of connection.toLowerCase().split(',')) {
      const name = token.trim();
      if (name && name !== 'connection' && !FRAMING.has(name)) delete headers[name];
    }
  // Only those present: deleting an absent one costs the same lookup and more.
  for (const name of RESPONSE_HOP_BY_HOP) if (headers[name] !== undefined) delete headers[name];
}
