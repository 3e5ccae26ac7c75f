import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { Injectable, UseFilters, UseGuards, UseInterceptors } from '@nestjs/common';
import { TrustedProxies } from '@arrbiter/server/config';
import { AllowlistInterceptor } from './allowlist.interceptor';
import { continueIfAwaited } from './expect-continue';
import { proxyCallOf, ProxyRequest } from './proxy-context';
import { ProxyExceptionFilter } from './proxy-exception.filter';
import { ProxyKeyGuard } from './proxy-key.guard';
import { UpstreamForwarder } from './upstream-forwarder';

/**
 * The proxy route's handlers: what `ProxyKeyGuard` and `AllowlistInterceptor` let through is handed to
 * http-proxy-middleware (`UpstreamForwarder`). Nest runs them with their guard, interceptor and filter
 * through `ExternalContextCreator` under the context type `'proxy'` (see `ProxyGateway`), outside
 * Express's router.
 */
@Injectable()
@UseGuards(ProxyKeyGuard)
@UseInterceptors(AllowlistInterceptor)
@UseFilters(ProxyExceptionFilter)
export class ProxyHandler {
  constructor(
    private readonly forwarder: UpstreamForwarder,
    private readonly trusted: TrustedProxies,
  ) {}

  forward(request: ProxyRequest, response: ServerResponse): void {
    // The call is allowed: a client that waits for `100 Continue` may send its body now.
    continueIfAwaited(response);
    const call = proxyCallOf(request);
    const fields = call.fields;
    const started = call.started ?? performance.now();
    this.forwarder.forward(
      request,
      response,
      call.proxy.service,
      call.path ?? '/',
      call.query,
      this.protocolOf(request),
      call.proxy.scrub ? this.forwarder.scrubberFor(call.proxy, call.key, request) : undefined,
      (outcome) => {
        if (!fields) return;
        fields.outcome = outcome;
        fields.upstreamMs = Math.round((performance.now() - started) * 10) / 10;
      },
    );
  }

  upgrade(request: ProxyRequest, socket: Socket, head: Buffer): void {
    const call = proxyCallOf(request);
    this.forwarder.upgrade(
      request,
      socket,
      head,
      call.proxy.service,
      call.path ?? '/',
      call.query,
      this.protocolOf(request),
    );
  }

  /** `http` or `https` as the client used it: `X-Forwarded-Proto` only from a trusted reverse proxy. */
  private protocolOf(request: IncomingMessage): string {
    const own = request.socket instanceof TLSSocket ? 'https' : 'http';
    const forwarded = request.headers['x-forwarded-proto'];
    if (typeof forwarded !== 'string' || !this.trusted.trusts(request.socket.remoteAddress ?? '', 0)) return own;
    const first = forwarded.split(',', 1)[0].trim().toLowerCase();
    return first === 'https' || first === 'http' ? first : own;
  }
}
