import { Agent as HttpAgent, ClientRequest, IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Socket } from 'node:net';
import type { Transform } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { AppConfig, ExternalRequest, ExternalUrls } from '@arrbiter/server/config';
import { createProxyMiddleware, RequestHandler } from 'http-proxy-middleware';
import { BodyMemory } from './body-memory';
import { Scrubber } from './scrubber';
import type { ProxyCall } from './proxy-context';
import { writeProblem } from './proxy-problem';
import type { ProxyState, ServiceState } from './proxy-registry';

/**
 * Request headers never copied as they came: those of one hop, the client's credentials (the handler's
 * `headers` option puts the upstream's own key in place of `x-api-key`), those this hop rewrites, and
 * those that make a server behind it read another method or path than the one the allowlist checked.
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
  // Method and URL overrides (ASP.NET, IIS, some frameworks and reverse proxies honour them): a granted
  // `POST /movie` must not become a `DELETE`, nor a granted path another one, behind the allowlist.
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
  'x-original-url',
  'x-rewrite-url',
]);

/**
 * On a proxy that scrubs, also `Range` and `If-Range`: the scrubber replaces the key where it finds it
 * whole, and two 206 answers would each hold a part of it, unscrubbed. The upstream answers 200 with
 * the whole body, scrubbed (a download cannot resume there: a proxy that serves files can turn scrubbing off).
 */
const NOT_COPIED_WHEN_SCRUBBED = new Set([...NOT_COPIED, 'range', 'if-range']);

/**
 * The request's framing. Never dropped, even when the client names it in `Connection`: the upstream
 * request is framed by Node from the body Node parsed (Node has validated both headers and refuses a
 * request that has both or a malformed one). Dropped on the client's word, the body would reach the
 * upstream unframed and be read there as a request of its own (request smuggling).
 */
const FRAMING = new Set(['content-length', 'transfer-encoding']);

/** How a forwarded request ended. */
export type ForwardOutcome = 'forwarded' | 'upstream-unreachable' | 'upstream-timeout';

/** One forwarding's state, on the request for the proxy server's listeners: one object per call. */
interface Forwarding {
  call: ProxyCall;
  timedOut: boolean;
  /** Whether its outcome is known already: it is reported once (an upgrade reports none). */
  settled: boolean;
  /** Replaces the upstream's key and base URL in the response; undefined: the response passes as it is. */
  scrubber: Scrubber | undefined;
}

/** Text bodies, which the scrubber reads: JSON, XML, text, HTML, JavaScript (with their `+json`/`+xml` kinds). */
const TEXT_TYPE = /^\s*(?:text\/|application\/(?:[\w.+-]*\+)?(?:json|xml|javascript|x-javascript|ecmascript)\b)/i;

/** A body up to this size, declared by `Content-Length`, is scrubbed whole and sent with its exact new length. */
export const WHOLE_BODY_BYTES = 64 * 1024;

/** Response headers whose values may carry the upstream's key or address. */
const SCRUBBED_HEADERS = new Set(['location', 'content-location', 'link', 'refresh']);

/** Decoders for what an upstream may still compress although asked for `identity`. */
const DECODERS: Record<string, () => Transform> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

const FORWARDING = Symbol('arrbiter.forwarding');
type ForwardedMessage = IncomingMessage & { [FORWARDING]?: Forwarding };

/** How many external URLs (host names a proxy is reached at) keep a scrubber each. */
const MAX_URLS_PER_PROXY = 8;

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
  /**
   * A proxy's scrubbers, one per external URL it was reached at (one only when `PUBLIC_URL` is set), for
   * as long as its state (and its service's) stays the same.
   */
  private readonly scrubbers = new WeakMap<
    ProxyState,
    { service: ServiceState; key: string; byUrl: Map<string, Scrubber> }
  >();
  private readonly via: string;
  /** A response stream's 'resume' listener: its upstream connection's time-out runs again. */
  private readonly restoreTimeout: (this: IncomingMessage) => void;

  constructor(
    private readonly config: AppConfig,
    private readonly bodies: BodyMemory,
    private readonly urls: ExternalUrls,
  ) {
    this.via = `1.1 ${config.proxyName}`;
    const timeout = config.upstreamTimeoutMs;
    this.restoreTimeout = function (this: IncomingMessage) {
      // Only after a pause: 'resume' is also emitted once when the response starts to flow.
      if (this.socket?.timeout === 0) this.socket.setTimeout(timeout);
    };
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
   * Forwards one call the guard and the interceptor let through, to `call.path` (`/` when unset) and
   * `call.query` on its proxy's service, scrubbed unless the proxy opts out. When the forwarding ends
   * before the response closes (the upstream failed or timed out, or the client left: 'forwarded'), it
   * completes the access line's fields once: the outcome and the upstream's time since `call.started`.
   * A call whose fields it never touches was forwarded.
   */
  forward(req: IncomingMessage, res: ServerResponse, call: ProxyCall): void {
    const scrubber = call.proxy.scrub ? this.scrubberFor(call.proxy, call.key, req) : undefined;
    this.prepare(req, call, false, scrubber);
    void this.handlerFor(call.proxy.service)(req, res, () => undefined);
  }

  /** Forwards an allowed WebSocket upgrade (not scrubbed; no access line). */
  upgrade(req: IncomingMessage, socket: Socket, head: Buffer, call: ProxyCall): void {
    this.prepare(req, call, true, undefined);
    this.handlerFor(call.proxy.service).upgrade(req, socket, head);
  }

  /**
   * What replaces the upstream's key and address in the responses of `proxy` to a caller holding `key`:
   * the proxy URL under the external URL `request` reached this server at (`PUBLIC_URL`, else its own
   * address: a header read, no database work), kept per URL string.
   */
  private scrubberFor(proxy: ProxyState, key: string, request: ExternalRequest): Scrubber {
    const url = this.urls.urlOf(request);
    let known = this.scrubbers.get(proxy);
    if (known?.service !== proxy.service || known.key !== key) {
      known = { service: proxy.service, key, byUrl: new Map() };
      this.scrubbers.set(proxy, known);
    }
    const cached = known.byUrl.get(url);
    if (cached) return cached;
    const service = proxy.service;
    const scrubber = new Scrubber({
      upstreamKey: service.upstreamKey,
      callerKey: key,
      origin: service.origin,
      basePath: service.basePath,
      proxyUrl: `${url}/proxy/${proxy.appSlug}`,
    });
    // Host names come from callers: a bounded few per proxy.
    if (known.byUrl.size >= MAX_URLS_PER_PROXY) known.byUrl.clear();
    known.byUrl.set(url, scrubber);
    return scrubber;
  }

  /**
   * Points the request at the upstream path and query, with the headers to send (`X-Forwarded-Proto`:
   * the scheme the client used, from a `TRUST_PROXY` peer's header or the socket) and its state.
   */
  private prepare(req: IncomingMessage, call: ProxyCall, upgrade: boolean, scrubber: Scrubber | undefined): void {
    (req as ForwardedMessage)[FORWARDING] = { call, timedOut: false, settled: upgrade, scrubber };
    const query = call.query;
    req.url = `${call.proxy.service.basePath}${call.path ?? '/'}${query ? `?${query}` : ''}`;
    const protocol = this.urls.requestProtocol(req);
    req.headers = this.outgoingHeaders(req, protocol, upgrade, scrubber ? NOT_COPIED_WHEN_SCRUBBED : NOT_COPIED);
    // A body the scrubber reads is asked for uncompressed (one that comes compressed anyway is decoded).
    if (scrubber) req.headers['accept-encoding'] = 'identity';
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
      // The response is written by `respond`: hop-by-hop headers dropped, key and address scrubbed.
      selfHandleResponse: true,
      agent: secure ? this.httpsAgent : this.httpAgent,
      ejectPlugins: true,
      plugins: [
        (server) => {
          server.on('proxyReq', (proxyReq: ClientRequest, req: IncomingMessage) =>
            this.onProxyReq(proxyReq, req as ForwardedMessage),
          );
          // Before httpxy's own listeners, which write the upgrade's answer (or a refusal) from these headers.
          server.on('proxyReqWs', (proxyReq: ClientRequest) => proxyReq.on('response', isolate).on('upgrade', isolate));
          server.on('proxyRes', (proxyRes: IncomingMessage, req: IncomingMessage, res: ServerResponse) =>
            this.respond(proxyRes, req as ForwardedMessage, res),
          );
          server.on('error', (error: Error, req?: IncomingMessage, res?: ServerResponse | Socket) => {
            if (req && res) this.onError(error, req as ForwardedMessage, res);
          });
          // The client went away: what reached the upstream was forwarded, nothing to answer.
          server.on('econnreset', (_error: Error, req?: IncomingMessage) =>
            settle((req as ForwardedMessage | undefined)?.[FORWARDING], 'forwarded'),
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
   * names (but the framing), the client's credentials and the rest of `notCopied` dropped — but a WebSocket upgrade's
   * `Connection` and `Upgrade` — and `Via` and `X-Forwarded-*` added. Removing and setting headers on the upstream request instead
   * costs a validation and a slower header object per header, on every call (`npm run bench`).
   */
  private outgoingHeaders(
    req: IncomingMessage,
    protocol: string,
    upgrade: boolean,
    notCopied: ReadonlySet<string>,
  ): IncomingHttpHeaders {
    const incoming = req.headers;
    const connection = incoming.connection;
    const listed = hopHeadersListed(connection);
    const outgoing: IncomingHttpHeaders = {};
    for (const name in incoming) {
      if (notCopied.has(name) || listed?.includes(name)) continue;
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
    proxyReq.setTimeout(this.config.upstreamTimeoutMs, () => {
      forwarding.timedOut = true;
      proxyReq.destroy(new Error('upstream time-out'));
    });
    if (!hasBody(req)) return;
    this.bodies.watch(req);
    if (!req.complete) this.clockWhileUpstreamWaits(req, proxyReq);
  }

  /**
   * While the client is still sending its body, the upstream waits for the client, not the other way
   * round: the clock runs only when the upstream holds the body back (`pipe` pauses the client's
   * stream) and from the moment the body is in. Without this, a client whose upload stalled for longer
   * than the time-out had its call cut, reported as the upstream's time-out. A client that stalls for
   * good meets Node's own request time-out (`requestTimeout`, 300 s).
   */
  private clockWhileUpstreamWaits(req: IncomingMessage, proxyReq: ClientRequest): void {
    const timeout = this.config.upstreamTimeoutMs;
    const stop = () => {
      if (!req.complete) proxyReq.setTimeout(0);
    };
    const run = () => proxyReq.setTimeout(timeout);
    req
      .on('resume', stop)
      .on('pause', run)
      .once('end', () => {
        req.off('resume', stop).off('pause', run);
        run();
      });
  }

  /**
   * Writes the upstream's response: its status, its headers but those of one hop (as one raw list, which
   * Node writes without a header object), and its body. With a scrubber, header values that may hold a
   * URL and text bodies have the upstream's key and base URL replaced: a body of up to 64 KiB with a
   * declared length is scrubbed whole and keeps an exact `Content-Length`; a longer, undeclared or
   * compressed one streams through the scrubber, decoded, and is sent chunked. Other bodies stream as
   * they are.
   */
  private respond(proxyRes: IncomingMessage, req: ForwardedMessage, res: ServerResponse): void {
    this.bodies.watch(proxyRes);
    const scrubber = req[FORWARDING]?.scrubber;
    const status = proxyRes.statusCode ?? 502;
    const headers = responseHeaders(proxyRes, scrubber);
    const bodyless = req.method === 'HEAD' || status === 204 || status === 304 || status < 200;
    const type = proxyRes.headers['content-type'];
    if (!scrubber || bodyless || type === undefined || !TEXT_TYPE.test(type)) {
      res.writeHead(status, proxyRes.statusMessage, headers.list);
      this.clockWhileFlowing(proxyRes).pipe(res);
      return;
    }
    const encoding = (proxyRes.headers['content-encoding'] ?? 'identity').trim().toLowerCase();
    const declared = headers.contentLength;
    if (encoding === 'identity' && declared !== undefined && declared <= WHOLE_BODY_BYTES) {
      const chunks: Buffer[] = [];
      proxyRes.on('data', (chunk: Buffer) => chunks.push(chunk));
      proxyRes.on('end', () => {
        const { body, changed } = scrubber.whole(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
        res.writeHead(status, proxyRes.statusMessage, changed ? withLength(headers, body.length) : headers.list);
        res.end(body);
      });
      return;
    }
    const decoder = DECODERS[encoding];
    if (encoding !== 'identity' && !decoder) {
      // An encoding this proxy cannot read: refused rather than passed on unread.
      proxyRes.resume();
      writeProblem(res, 502, `The upstream answered with a content encoding this proxy cannot scrub (${encoding})`);
      return;
    }
    res.writeHead(status, proxyRes.statusMessage, withoutFraming(headers, decoder !== undefined));
    // Piped rather than `pipeline`d: `pipeline` adds a 'close' listener per stage to the response, and
    // with httpxy's and the access line's Node warns of a leak. httpxy destroys the response when the
    // upstream's fails or closes early, and the upstream's when the response closes; a failing decoder
    // or scrubber destroys the response here.
    const scrub = scrubber.stream();
    const fail = (error: Error) => {
      if (!res.destroyed) res.destroy(error);
    };
    scrub.on('error', fail);
    const upstream = this.clockWhileFlowing(proxyRes);
    if (decoder) {
      const decode = decoder().on('error', fail);
      upstream.pipe(decode).pipe(scrub).pipe(res);
    } else upstream.pipe(scrub).pipe(res);
  }

  /**
   * The time-out measures the upstream. While the client holds a streamed response back, `pipe` stops
   * reading the upstream on purpose: its connection is idle then, and the clock stops. Without this, a
   * client that paused a download for longer than the time-out had it cut, reported as the upstream's
   * time-out. A stream emits 'pause' when `pipe` meets back-pressure and 'resume' when it goes on. A
   * body read whole (the scrubber's) is never paused: it needs neither listener.
   */
  private clockWhileFlowing(proxyRes: IncomingMessage): IncomingMessage {
    return proxyRes.on('pause', suspendTimeout).on('resume', this.restoreTimeout);
  }

  private onError(error: Error, req: ForwardedMessage, res: ServerResponse | Socket): void {
    const forwarding = req[FORWARDING];
    const timedOut = forwarding?.timedOut ?? false;
    const code = (error as NodeJS.ErrnoException).code ?? error.message;
    const origin = forwarding?.call.proxy.service.origin ?? '?';
    this.logger.warn(`Upstream ${origin} ${timedOut ? 'timed out' : `failed: ${code}`}`);
    settle(forwarding, timedOut ? 'upstream-timeout' : 'upstream-unreachable');
    if (!(res instanceof ServerResponse)) {
      res.destroy();
      return;
    }
    if (timedOut) writeProblem(res, 504, `The upstream did not answer within ${this.config.upstreamTimeoutMs} ms`);
    else writeProblem(res, 502, `The upstream cannot be reached (${code})`);
  }
}

/**
 * Reports how a forwarding ended, once: into the access line's fields (the outcome, and the upstream's
 * time since the line's clock started).
 */
function settle(forwarding: Forwarding | undefined, outcome: ForwardOutcome): void {
  if (!forwarding || forwarding.settled) return;
  forwarding.settled = true;
  const { fields, started } = forwarding.call;
  if (!fields) return;
  fields.outcome = outcome;
  if (started !== undefined) fields.upstreamMs = Math.round((performance.now() - started) * 10) / 10;
}

/** A response stream's 'pause' listener: the client holds the response back, the upstream is not late. */
function suspendTimeout(this: IncomingMessage): void {
  // No socket once the response has ended: Node detaches it before the pool hands it to another request.
  this.socket?.setTimeout(0);
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
}

/**
 * Response headers of one hop, which Node writes for the client itself: `Connection` and
 * `Transfer-Encoding` (Node frames the body it is given).
 */
const RESPONSE_HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'te',
  'trailer',
  'upgrade',
  'transfer-encoding',
]);

/**
 * Response headers never passed on besides those of one hop: proxied answers share the dashboard's
 * origin (unless `/proxy` has a host name of its own), so an upstream must not set or clear its
 * cookies (`arrbiter_session`) or its site data. Its `X-Content-Type-Options` gives way to this hop's.
 */
const RESPONSE_NOT_COPIED = new Set([
  ...RESPONSE_HOP_BY_HOP,
  'set-cookie',
  'clear-site-data',
  'x-content-type-options',
]);

/** `ISOLATION_HEADERS` for a WebSocket upgrade's answer, which httpxy writes from the upstream's header object. */
function isolate(upstream: IncomingMessage): void {
  const headers = upstream.headers;
  delete headers['set-cookie'];
  delete headers['clear-site-data'];
  headers['x-content-type-options'] = 'nosniff';
  headers['content-security-policy'] = headers['content-security-policy']
    ? `${String(headers['content-security-policy'])}, sandbox`
    : 'sandbox';
}

interface ResponseHeaders {
  /** Names and values, one after the other, as `ServerResponse.writeHead` takes them. */
  list: string[];
  /** The declared `Content-Length`, when there is exactly one valid one. */
  contentLength: number | undefined;
}

/** Names listed in `Connection`, which belong to this hop too (RFC 9110 §7.6.1), but the framing. */
function hopHeadersListed(connection: string | undefined): string[] | undefined {
  // Almost every call says only `keep-alive` or `close`, which name no other header.
  if (connection === undefined || connection === 'keep-alive' || connection === 'close') return undefined;
  return connection
    .toLowerCase()
    .split(',')
    .map((token) => token.trim())
    .filter((name) => name !== '' && !FRAMING.has(name));
}

/**
 * The upstream's response headers as the client gets them: those of one hop and the origin's cookies
 * dropped, URLs scrubbed, `ISOLATION_HEADERS` added.
 */
function responseHeaders(proxyRes: IncomingMessage, scrubber: Scrubber | undefined): ResponseHeaders {
  const raw = proxyRes.rawHeaders;
  const listed = hopHeadersListed(proxyRes.headers.connection);
  const list: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i];
    const lower = name.toLowerCase();
    if (RESPONSE_NOT_COPIED.has(lower) || listed?.includes(lower)) continue;
    list.push(name, scrubber && SCRUBBED_HEADERS.has(lower) ? scrubber.text(raw[i + 1]) : raw[i + 1]);
  }
  list.push('X-Content-Type-Options', 'nosniff', 'Content-Security-Policy', 'sandbox');
  // Node has checked that a declared length is one valid number (it refuses the response otherwise).
  const length = proxyRes.headers['content-length'];
  return { list, contentLength: length === undefined ? undefined : Number(length) };
}

/** The headers with `Content-Length` set to the scrubbed body's length. */
function withLength(headers: ResponseHeaders, length: number): string[] {
  const list = withoutFraming(headers, false);
  list.push('Content-Length', String(length));
  return list;
}

/** The headers without `Content-Length` (the body changes length: Node sends it chunked), and without `Content-Encoding` once decoded. */
function withoutFraming(headers: ResponseHeaders, decoded: boolean): string[] {
  const list: string[] = [];
  for (let i = 0; i < headers.list.length; i += 2) {
    const lower = headers.list[i].toLowerCase();
    if (lower === 'content-length' || (decoded && lower === 'content-encoding')) continue;
    list.push(headers.list[i], headers.list[i + 1]);
  }
  return list;
}
