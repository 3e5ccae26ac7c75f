import { ServerResponse } from 'node:http';
import { CallHandler, ExecutionContext, Injectable, NestInterceptor } from '@nestjs/common';
import { unknownPathShape, WarningRecorder } from '@arrbiter/server/warnings';
import type { Observable } from 'rxjs';
import { AccessLog } from './access-log';
import { Authorization, ProxyAccess } from './proxy-access';
import { AccessLogFields, proxyCallOf, ProxyRequest } from './proxy-context';
import { FORBIDDEN_DETAIL, ProxyRefusal } from './proxy-problem';
import type { ProxyState } from './proxy-registry';

/**
 * The proxy route's allowlist check, after `ProxyKeyGuard`: canonical path, route resolution and the
 * proxy's effective allowlist (a learning proxy lets more through and records it). A refusal is a 400
 * (bad path) or a 403 recorded as an access warning without waiting for the database. Around the
 * handler it starts the access line's clock; the line is written when the response closes, with the
 * outcome the forwarding reports.
 */
@Injectable()
export class AllowlistInterceptor implements NestInterceptor {
  constructor(
    private readonly access: ProxyAccess,
    private readonly warnings: WarningRecorder,
    private readonly accessLog: AccessLog,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const http = context.switchToHttp();
    this.admit(http.getRequest<ProxyRequest>(), http.getResponse<unknown>());
    return next.handle();
  }

  /**
   * The check itself, without Nest's execution context (`ProxyGateway.handle` calls it directly):
   * completes the call on the request and starts its access line, or throws a `ProxyRefusal`.
   */
  admit(request: ProxyRequest, response: unknown): void {
    const call = proxyCallOf(request);
    const { proxy } = call;
    const method = request.method ?? 'GET';
    const verdict = this.access.authorize(proxy, method, call.rawPath);
    switch (verdict.outcome) {
      case 'bad-path':
        throw new ProxyRefusal(400, verdict.reason, {
          method,
          app: proxy.appSlug,
          proxyId: proxy.id,
          outcome: 'bad-path',
        });
      case 'forbidden':
        this.recordWarning(proxy, verdict);
        throw new ProxyRefusal(403, FORBIDDEN_DETAIL, {
          method,
          app: proxy.appSlug,
          proxyId: proxy.id,
          path: verdict.path,
          route: verdict.route?.path ?? null,
          outcome: 'forbidden',
        });
      case 'learned':
      case 'allowed': {
        if (verdict.outcome === 'learned') this.recordWarning(proxy, verdict);
        const fields: AccessLogFields = {
          method,
          app: proxy.appSlug,
          proxyId: proxy.id,
          path: verdict.path,
          route: verdict.route?.path ?? null,
          outcome: 'forwarded',
        };
        if (verdict.outcome === 'learned') fields.learned = true;
        call.path = verdict.path;
        call.fields = fields;
        // Tracked from here, so the line's duration is the upstream's when the forwarding succeeds. An
        // upgrade has no response to close: it gets no access line (as before the pipeline).
        if (response instanceof ServerResponse) call.started = this.accessLog.track(request, response, fields);
        return;
      }
    }
  }

  private recordWarning(proxy: ProxyState, verdict: Extract<Authorization, { outcome: 'forbidden' | 'learned' }>) {
    this.warnings.record({
      learned: verdict.outcome === 'learned',
      proxyId: proxy.id,
      appId: proxy.appId,
      method: verdict.method,
      path: verdict.path,
      route: verdict.route?.path ?? null,
      // A path no route matches is keyed by its bounded shape (ids folded), never by itself: one row per
      // made-up path would let a key holder fill the disk.
      routeKey: verdict.route?.shape ?? unknownPathShape(verdict.path),
    });
  }
}
