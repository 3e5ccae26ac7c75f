import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { ExternalContextCreator } from '@nestjs/core';
import { AppConfig } from '@arrbiter/server/config';
import { AllowlistInterceptor } from './allowlist.interceptor';
import { awaitContinue } from './expect-continue';
import { ProxyExceptionFilter } from './proxy-exception.filter';
import { ProxyKeyGuard } from './proxy-key.guard';
import { closesAfterAnswer, sendProblem } from './proxy-problem';
import { ProxyHandler } from './proxy.handler';

/** Whether a request target belongs to the proxy route (`/proxy/...`); everything else is Express's. */
export function isProxyUrl(url: string): boolean {
  return url.startsWith('/proxy') && (url.length === 6 || url[6] === '/' || url[6] === '?');
}

/** Whether a request offers a WebSocket upgrade (RFC 6455 §4.1); other `Upgrade` offers are ignored. */
export function isWebSocketUpgrade(req: IncomingMessage): boolean {
  const upgrade = req.headers.upgrade;
  return upgrade !== undefined && upgrade.trim().toLowerCase() === 'websocket';
}

/** The context type of the proxy pipeline: admin guards (`context.getType() === 'http'`) stand aside. */
export const PROXY_CONTEXT = 'proxy';

type Pipeline = (...args: unknown[]) => Promise<unknown>;

/**
 * The proxy route, `/proxy/{appSlug}/{upstreamPath}` for any method and for WebSocket upgrades, entered
 * from the HTTP server's request and upgrade listeners (the composition root sends `/proxy…` here and
 * everything else to Express).
 *
 * `ProxyHandler` carries its guard, interceptor and filter; Nest runs them through
 * `ExternalContextCreator` under a context type of its own, as `@nestjs/graphql` and
 * `@nestjs/microservices` do (or, by default, `handle` calls the same instances itself:
 * `PROXY_CHECKS`), not through Express's router: measured by `npm run bench`, Express's router and
 * Nest's HTTP pipeline cost about 290 µs of CPU per proxied call, more than the whole passthrough
 * (docs/decisions/proxy-route-outside-express.md). Proxy keys are the credential: admin sessions, Origin
 * checks and body parsing never apply here.
 */
@Injectable()
export class ProxyGateway implements OnApplicationBootstrap {
  private readonly logger = new Logger('ProxyGateway');
  private forwardPipeline?: Pipeline;
  private upgradePipeline?: Pipeline;
  /** `PROXY_CHECKS=direct`: `handle` calls the checks itself instead of `forwardPipeline`. */
  private readonly direct: boolean;

  constructor(
    private readonly contexts: ExternalContextCreator,
    private readonly handler: ProxyHandler,
    private readonly guard: ProxyKeyGuard,
    private readonly allowlist: AllowlistInterceptor,
    private readonly filter: ProxyExceptionFilter,
    config: AppConfig,
  ) {
    this.direct = config.proxyChecks === 'direct';
  }

  /** After every module (and the global enhancers) is ready. */
  onApplicationBootstrap(): void {
    const options = { guards: true, interceptors: true, filters: true };
    const pipeline = (method: 'forward' | 'upgrade'): Pipeline =>
      this.contexts.create(
        this.handler,
        // Nest applies it to `this.handler`.
        this.handler[method] as (...args: unknown[]) => unknown,
        method,
        undefined,
        undefined,
        undefined,
        undefined,
        options,
        PROXY_CONTEXT,
      );
    this.forwardPipeline = pipeline('forward');
    this.upgradePipeline = pipeline('upgrade');
  }

  /**
   * Checks one proxy request and forwards it or refuses it. Never throws. `expectsContinue`: the client
   * waits for `100 Continue` before it sends its body (the server's 'checkContinue'); it gets it only if
   * the call is allowed.
   */
  handle(req: IncomingMessage, res: ServerResponse, expectsContinue = false): void {
    // A request pipelined behind an answer that closes the connection never reaches here (the
    // composition root's dispatch checks `closesAfterAnswer`).
    if (expectsContinue) awaitContinue(res);
    const pipeline = this.forwardPipeline;
    if (!pipeline) return sendProblem(req, res, 503, 'The server is starting');
    if (!this.direct) {
      pipeline(req, res).catch((error: unknown) => {
        this.fail(error);
        sendProblem(req, res, 500, 'Internal server error');
      });
      return;
    }
    // `PROXY_CHECKS=direct` (the default): the same guard, allowlist check, handler and filter as
    // `forwardPipeline`, called in order and at once. Nest's consumers (an execution context each, the
    // global guards, rxjs's defer/mergeAll/lastValueFrom chain, two async resources and about ten
    // promises) and the route resolution the memo of `ProxyAccess` skips: about 29 µs of CPU per call
    // measured with `npm run bench:ab` (docs/decisions/proxy-checks-direct.md, the one place for the
    // figure). Upgrades always go through Nest's pipeline.
    try {
      this.guard.admit(req);
      this.allowlist.admit(req, res);
      this.handler.forward(req, res);
    } catch (error) {
      try {
        this.filter.answer(error, req, res);
      } catch (failure) {
        this.fail(failure);
        sendProblem(req, res, 500, 'Internal server error');
      }
    }
  }

  /** A WebSocket upgrade: the same pipeline as an ordinary request. Never throws. */
  upgrade(req: IncomingMessage, socket: Socket, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const pipeline = this.upgradePipeline;
    if (!pipeline || closesAfterAnswer(socket)) {
      socket.destroy();
      return;
    }
    pipeline(req, socket, head).catch((error: unknown) => {
      this.fail(error);
      socket.destroy();
    });
  }

  private fail(error: unknown): void {
    const failure = error instanceof Error ? error : new Error(String(error));
    this.logger.error({ err: { type: failure.name, message: failure.message, stack: failure.stack } }, 'proxy failed');
  }
}
