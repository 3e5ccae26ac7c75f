import { createServer, IncomingMessage, RequestListener, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { NestApplicationOptions } from '@nestjs/common';
import { ExpressAdapter } from '@nestjs/platform-express';
import { closesAfterAnswer, isProxyUrl, isWebSocketUpgrade } from '@arrbiter/server/gateway';

/** The proxy route's entry points (`ProxyGateway`), known once Nest has built the application. */
export interface ProxyEntry {
  handle(req: IncomingMessage, res: ServerResponse, expectsContinue: boolean): void;
  upgrade(req: IncomingMessage, socket: Socket, head: Buffer): void;
}

/**
 * The one HTTP server and its dispatch: `/proxy…` goes to the proxy pipeline, everything else to
 * Express (the admin API, the dashboard, health). Only WebSocket offers are upgrades (Node's
 * `shouldUpgradeCallback`); any other, such as `h2c`, is served as plain HTTP/1.1. Every upgrade goes to
 * the proxy pipeline, which refuses those outside `/proxy`.
 *
 * A request with `Expect: 100-continue` comes through 'checkContinue', and Node sends nothing for it:
 * the proxy pipeline sends `100 Continue` only to a call it allows, so that a refused upload is never
 * sent; Express's routes get it at once, as Node sends it when nobody listens.
 */
export function createHttpServer(
  express: RequestListener,
  proxy: () => ProxyEntry | undefined,
  prefix = '',
  forwardedPrefix?: (req: IncomingMessage) => string,
): Server {
  // Under a sub-path, answered with it (a front proxy that keeps it) and without it (one that strips
  // it): PUBLIC_URL's path, else (PUBLIC_URL unset, TRUST_PROXY set) a trusted X-Forwarded-Prefix. One
  // string check per request when there is a prefix; nothing when there can be none.
  const strip =
    prefix !== ''
      ? (req: IncomingMessage) => (req.url = withoutPrefix(req.url ?? '/', prefix))
      : forwardedPrefix &&
        ((req: IncomingMessage) => {
          if (req.headers['x-forwarded-prefix'] === undefined) return;
          const named = forwardedPrefix(req);
          if (named !== '' && !OWN_ROOT.test(named)) req.url = withoutPrefix(req.url ?? '/', named);
        });
  const dispatch = (req: IncomingMessage, res: ServerResponse, expectsContinue: boolean) => {
    // Pipelined behind an answer that closes the connection, its answer could never be sent: it is not
    // processed (RFC 9112 §9.6). Node dispatches it all the same, and closes the connection unanswered.
    if (closesAfterAnswer(req.socket)) return;
    strip?.(req);
    if (!isProxyUrl(req.url ?? '/')) {
      if (expectsContinue) res.writeContinue();
      return express(req, res);
    }
    const entry = proxy();
    if (entry) return entry.handle(req, res, expectsContinue);
    // Not reached: the server listens only once the application (and so the gateway) is built.
    res.writeHead(503, { Connection: 'close' }).end();
  };
  const server = createServer({ shouldUpgradeCallback: isWebSocketUpgrade }, (req, res) => dispatch(req, res, false));
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => dispatch(req, res, true));
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    strip?.(req);
    const entry = proxy();
    if (entry) entry.upgrade(req, socket, head);
    else socket.destroy();
  });
  return server;
}

/** A prefix that is one of this server's own roots is not a sub-path: `/api/x` stays `/api/x`. */
const OWN_ROOT = /^\/(?:api|proxy|health)(?:\/|$)/;

/**
 * The request target without the sub-path `prefix` (`/arrbiter`): `/arrbiter/api/x` → `/api/x`,
 * `/arrbiter` and `/arrbiter?q` → `/`, `/arrbiter?q`; anything else (`/arrbiterx`, `/api/x`) as it is.
 */
export function withoutPrefix(url: string, prefix: string): string {
  if (!url.startsWith(prefix)) return url;
  if (url.length === prefix.length) return '/';
  const next = url.charCodeAt(prefix.length);
  if (next === 0x2f) return url.slice(prefix.length);
  if (next === 0x3f) return `/${url.slice(prefix.length)}`;
  return url;
}

/** Nest's Express adapter on a server made here rather than by the adapter. */
export class DispatchingExpressAdapter extends ExpressAdapter {
  constructor(
    instance: RequestListener & object,
    private readonly server: Server,
  ) {
    super(instance);
  }

  override initHttpServer(_options: NestApplicationOptions): void {
    this.setHttpServer(this.server);
  }
}
