import type { IncomingMessage } from 'node:http';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { WarningRecorder } from '@arrbiter/server/warnings';
import { ProxyAccess } from './proxy-access';
import { UpstreamForwarder } from './upstream-forwarder';

function refuse(socket: Socket, status: number): void {
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/**
 * WebSocket (upgrade) requests: on the proxy route they pass exactly the checks of an ordinary request
 * (the upstream then sees the same credentials swap); anywhere else they are refused.
 */
@Injectable()
export class ProxyUpgradeHandler implements OnApplicationBootstrap {
  constructor(
    private readonly adapterHost: HttpAdapterHost,
    private readonly access: ProxyAccess,
    private readonly forwarder: UpstreamForwarder,
    private readonly warnings: WarningRecorder,
  ) {}

  onApplicationBootstrap(): void {
    const server = this.adapterHost.httpAdapter?.getHttpServer() as
      | { on?: (event: string, listener: (...args: never[]) => void) => void }
      | undefined;
    server?.on?.('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => this.handle(req, socket, head));
  }

  handle(req: IncomingMessage, socket: Socket, head: Buffer): void {
    socket.on('error', () => socket.destroy());
    const decision = this.access.check(req.method ?? 'GET', req.url ?? '/', req.headers);
    switch (decision.outcome) {
      case 'unauthorized':
        return refuse(socket, 401);
      case 'bad-path':
        return refuse(socket, 400);
      case 'forbidden':
        this.warnings.record({
          proxyId: decision.proxy.id,
          appId: decision.proxy.appId,
          method: decision.method,
          path: decision.path,
          route: decision.route?.path ?? null,
          routeKey: decision.route?.shape ?? decision.path,
        });
        return refuse(socket, 403);
      case 'allowed':
        return this.forwarder.upgrade(req, socket, head, decision.proxy.service, decision.path, decision.query);
    }
  }
}
