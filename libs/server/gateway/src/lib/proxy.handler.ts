import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { Injectable, UseFilters, UseGuards, UseInterceptors } from '@nestjs/common';
import { AllowlistInterceptor } from './allowlist.interceptor';
import { continueIfAwaited } from './expect-continue';
import { proxyCallOf, ProxyRequest } from './proxy-context';
import { ProxyExceptionFilter } from './proxy-exception.filter';
import { ProxyKeyGuard } from './proxy-key.guard';
import { UpstreamForwarder } from './upstream-forwarder';

/**
 * The proxy route's handlers: what `ProxyKeyGuard` and `AllowlistInterceptor` let through is handed to
 * http-proxy-middleware (`UpstreamForwarder`) with the call they put on the request (`ProxyCall`). Nest
 * runs them with their guard, interceptor and filter through `ExternalContextCreator` under the context
 * type `'proxy'` (see `ProxyGateway`), outside Express's router.
 */
@Injectable()
@UseGuards(ProxyKeyGuard)
@UseInterceptors(AllowlistInterceptor)
@UseFilters(ProxyExceptionFilter)
export class ProxyHandler {
  constructor(private readonly forwarder: UpstreamForwarder) {}

  forward(request: ProxyRequest, response: ServerResponse): void {
    // The call is allowed: a client that waits for `100 Continue` may send its body now.
    continueIfAwaited(response);
    this.forwarder.forward(request, response, proxyCallOf(request));
  }

  upgrade(request: ProxyRequest, socket: Socket, head: Buffer): void {
    this.forwarder.upgrade(request, socket, head, proxyCallOf(request));
  }
}
