import type { IncomingMessage, RequestListener, Server, ServerOptions, ServerResponse } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { ProblemDetails } from '@arrbiter/contracts';
import { WarningRecorder } from '@arrbiter/server/warnings';
import { AccessLog } from './access-log';
import { AccessDecision, ProxyAccess } from './proxy-access';
import type { AccessLogFields } from './proxy-context';
import { UpstreamForwarder } from './upstream-forwarder';

/** One body for every 401, so that a caller cannot tell which slugs exist. */
export const UNAUTHORIZED_DETAIL = 'A valid key for an active proxy of this app is required';
export const FORBIDDEN_DETAIL = 'This method and path are not in the allowlist of this proxy';
const NO_SLUG_DETAIL = 'Proxy URLs are /proxy/{appSlug}/{path}';

/** Whether a request target belongs to the proxy route (`/proxy/...`); everything else is Express's. */
export function isProxyUrl(url: string): boolean {
  return url.startsWith('/proxy') && (url.length === 6 || url[6] === '/' || url[6] === '?');
}

/** Whether a request offers a WebSocket upgrade (RFC 6455 §4.1); other `Upgrade` offers are ignored. */
export function isWebSocketUpgrade(req: IncomingMessage): boolean {
  const upgrade = req.headers.upgrade;
  return upgrade !== undefined && upgrade.trim().toLowerCase() === 'websocket';
}

const problemBodies = new Map<string, string>();

/** The serialised RFC 9457 document; the set of statuses and details is small and fixed, so it is cached. */
function problemBody(status: number, detail: string): string {
  const key = `${status}|${detail}`;
  let body = problemBodies.get(key);
  if (body === undefined) {
    const problem: ProblemDetails = { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail };
    body = JSON.stringify(problem);
    if (problemBodies.size < 1000) problemBodies.set(key, body);
  }
  return body;
}

/** A refused request's body up to this size is read and discarded, and its connection kept. */
export const DISCARDED_BODY_LIMIT = 64 * 1024;
/** How long the rest of such a body may take to arrive before the connection is closed. */
const DISCARD_DEADLINE_MS = 5_000;

/**
 * Answers a request that is not forwarded. A body that came with it must not be left on the
 * connection: a small one (declared at most 64 KiB) is read and discarded by Node and the connection
 * stays usable for the client's next call; a larger or unsized (chunked) one is not read — the answer
 * says `Connection: close` and Node closes the connection after it.
 */
function sendProblem(req: IncomingMessage, res: ServerResponse, status: number, detail: string): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = problemBody(status, detail);
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/problem+json',
    'Content-Length': Buffer.byteLength(body),
  };
  const declared = req.headers['content-length'];
  if (req.headers['transfer-encoding'] !== undefined || Number(declared) > DISCARDED_BODY_LIMIT)
    headers['Connection'] = 'close';
  else if (Number(declared) > 0) discardWithin(req, res, DISCARD_DEADLINE_MS);
  res.writeHead(status, headers);
  res.end(body);
}

/** Closes the connection if the rest of a small refused body has not arrived in time. */
function discardWithin(req: IncomingMessage, res: ServerResponse, ms: number): void {
  res.once('finish', () => {
    if (req.complete) return;
    const timer = setTimeout(() => req.socket.destroy(), ms).unref();
    req.once('end', () => clearTimeout(timer));
  });
}

function refuseUpgrade(socket: Socket, status: number): void {
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

type TrustFn = (address: string, hop: number) => boolean;

/**
 * The proxy route, `/proxy/{appSlug}/{upstreamPath}` for any method and for WebSocket upgrades.
 *
 * It is served by a request listener placed in front of Express on the same HTTP server, not by a Nest
 * controller: measured by `npm run bench`, Express's router and Nest's guard/interceptor pipeline cost
 * about 290 µs of CPU per proxied call, more than the whole http-proxy-middleware passthrough (see
 * docs/performance.md). The checks are the same pure, in-memory `ProxyAccess` (design §3): credential,
 * app and proxy state, canonical path, route resolution, allowlist; refusals are RFC 9457 problem
 * documents, 403s are recorded as access warnings without waiting for the database, and every request
 * gets one access line. Proxy keys are the credential: admin sessions, Origin checks and body parsing
 * never apply here. Everything else goes to Express unchanged.
 */
@Injectable()
export class ProxyGateway implements OnApplicationBootstrap {
  private readonly logger = new Logger('ProxyGateway');
  private trust: TrustFn = () => false;

  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly access: ProxyAccess,
    private readonly forwarder: UpstreamForwarder,
    private readonly warnings: WarningRecorder,
    private readonly accessLog: AccessLog,
  ) {}

  onApplicationBootstrap(): void {
    const adapter = this.adapterHost.httpAdapter;
    const server = adapter?.getHttpServer() as Server | undefined;
    if (!server?.listeners) return;
    // Express compiles its `trust proxy` setting; the forwarded protocol follows the same rule.
    const express = adapter.getInstance<{ get?: (name: string) => unknown }>();
    const trust = express.get?.('trust proxy fn');
    if (typeof trust === 'function') this.trust = trust as TrustFn;

    // Only WebSocket offers are upgrades; any other (an h2c offer) is served as plain HTTP/1.1. This is
    // Node's `shouldUpgradeCallback` server option (Node ≥ 24.9), set here because Nest creates the server.
    (server as Server & Pick<ServerOptions, 'shouldUpgradeCallback'>).shouldUpgradeCallback = isWebSocketUpgrade;
    const others = server.listeners('request') as RequestListener[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (isProxyUrl(req.url ?? '/')) return this.handle(req, res);
      for (const listener of others) listener(req, res);
    });
    server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => this.upgrade(req, socket, head));
  }

  /** Checks one proxy request and forwards it or refuses it. Never throws. */
  handle(req: IncomingMessage, res: ServerResponse): void {
    try {
      this.decide(req, res, this.access.check(req.method ?? 'GET', req.url ?? '/', req.headers));
    } catch (error) {
      const failure = error instanceof Error ? error : new Error(String(error));
      this.logger.error(
        { err: { type: failure.name, message: failure.message, stack: failure.stack } },
        'proxy failed',
      );
      sendProblem(req, res, 500, 'Internal server error');
    }
  }

  private decide(req: IncomingMessage, res: ServerResponse, decision: AccessDecision): void {
    const method = req.method ?? 'GET';
    switch (decision.outcome) {
      case 'unauthorized':
        this.accessLog.track(req, res, { method, app: decision.slug, outcome: 'unauthorized' });
        return sendProblem(
          req,
          res,
          decision.slug === '' ? 404 : 401,
          decision.slug === '' ? NO_SLUG_DETAIL : UNAUTHORIZED_DETAIL,
        );
      case 'bad-path':
        this.accessLog.track(req, res, {
          method,
          app: decision.proxy.appSlug,
          proxyId: decision.proxy.id,
          outcome: 'bad-path',
        });
        return sendProblem(req, res, 400, decision.reason);
      case 'forbidden':
        this.accessLog.track(req, res, {
          method,
          app: decision.proxy.appSlug,
          proxyId: decision.proxy.id,
          path: decision.path,
          route: decision.route?.path ?? null,
          outcome: 'forbidden',
        });
        this.recordWarning(decision);
        return sendProblem(req, res, 403, FORBIDDEN_DETAIL);
      case 'learned':
      case 'allowed': {
        if (decision.outcome === 'learned') this.recordWarning(decision);
        const fields: AccessLogFields = {
          method,
          app: decision.proxy.appSlug,
          proxyId: decision.proxy.id,
          path: decision.path,
          route: decision.route?.path ?? null,
          outcome: 'forwarded',
          ...(decision.outcome === 'learned' ? { learned: true } : {}),
        };
        // Tracked from here, so the line's duration is the upstream's when the forwarding succeeds.
        const started = this.accessLog.track(req, res, fields);
        const { service } = decision.proxy;
        this.forwarder.forward(req, res, service, decision.path, decision.query, this.protocolOf(req), (outcome) => {
          fields.outcome = outcome;
          fields.upstreamMs = Math.round((performance.now() - started) * 10) / 10;
        });
        return;
      }
    }
  }

  /** A WebSocket upgrade: exactly the checks of an ordinary request; anywhere but /proxy it is refused. */
  upgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const decision = this.access.check(req.method ?? 'GET', req.url ?? '/', req.headers);
    switch (decision.outcome) {
      case 'unauthorized':
        return refuseUpgrade(socket, 401);
      case 'bad-path':
        return refuseUpgrade(socket, 400);
      case 'forbidden':
        this.recordWarning(decision);
        return refuseUpgrade(socket, 403);
      case 'learned':
      case 'allowed':
        if (decision.outcome === 'learned') this.recordWarning(decision);
        return this.forwarder.upgrade(
          req,
          socket,
          head,
          decision.proxy.service,
          decision.path,
          decision.query,
          this.protocolOf(req),
        );
    }
  }

  private recordWarning(decision: Extract<AccessDecision, { outcome: 'forbidden' | 'learned' }>): void {
    this.warnings.record({
      learned: decision.outcome === 'learned',
      proxyId: decision.proxy.id,
      appId: decision.proxy.appId,
      method: decision.method,
      path: decision.path,
      route: decision.route?.path ?? null,
      routeKey: decision.route?.shape ?? decision.path,
    });
  }

  /** `http` or `https` as the client used it: `X-Forwarded-Proto` only from a trusted reverse proxy. */
  private protocolOf(req: IncomingMessage): string {
    const own = req.socket instanceof TLSSocket ? 'https' : 'http';
    const forwarded = req.headers['x-forwarded-proto'];
    if (typeof forwarded !== 'string' || !this.trust(req.socket.remoteAddress ?? '', 0)) return own;
    const first = forwarded.split(',', 1)[0].trim().toLowerCase();
    return first === 'https' || first === 'http' ? first : own;
  }
}
