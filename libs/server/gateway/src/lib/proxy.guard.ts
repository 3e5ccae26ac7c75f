import {
  BadRequestException,
  CanActivate,
  ExecutionContext,
  ForbiddenException,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { WarningRecorder } from '@arrbiter/server/warnings';
import type { Request, Response } from 'express';
import { AccessLog } from './access-log';
import { ProxyAccess } from './proxy-access';
import { AccessLogFields, setAllowed } from './proxy-context';

/** One body for every 401, so that a caller cannot tell which slugs exist. */
export const UNAUTHORIZED_DETAIL = 'A valid key for an active proxy of this app is required';
export const FORBIDDEN_DETAIL = 'This method and path are not in the allowlist of this proxy';

// Refusals are the hot path of a flood: one immutable exception each, no stack captured per request.
const UNAUTHORIZED = new UnauthorizedException(UNAUTHORIZED_DETAIL);
const FORBIDDEN = new ForbiddenException(FORBIDDEN_DETAIL);

/**
 * The proxy route's guard: credential, app and proxy state, canonical path, route resolution and
 * allowlist. A refusal (403) is recorded as an access warning without waiting for the database.
 */
@Injectable()
export class ProxyGuard implements CanActivate {
  constructor(
    private readonly access: ProxyAccess,
    private readonly warnings: WarningRecorder,
    private readonly accessLog: AccessLog,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    const http = context.switchToHttp();
    const request = http.getRequest<Request>();
    const response = http.getResponse<Response>();
    const decision = this.access.check(request.method, request.originalUrl, request.headers);
    const log = (fields: Omit<AccessLogFields, 'method'>) => {
      const entry: AccessLogFields = { method: request.method, ...fields };
      response.locals['proxy'] = entry;
      this.accessLog.track(request, response, entry);
    };
    switch (decision.outcome) {
      case 'unauthorized':
        log({ app: decision.slug, outcome: 'unauthorized' });
        throw UNAUTHORIZED;
      case 'bad-path':
        log({ app: decision.proxy.appSlug, proxyId: decision.proxy.id, outcome: 'bad-path' });
        throw new BadRequestException(decision.reason);
      case 'forbidden': {
        const route = decision.route?.path ?? null;
        log({
          app: decision.proxy.appSlug,
          proxyId: decision.proxy.id,
          path: decision.path,
          route,
          outcome: 'forbidden',
        });
        this.warnings.record({
          proxyId: decision.proxy.id,
          appId: decision.proxy.appId,
          method: decision.method,
          path: decision.path,
          route,
          routeKey: decision.route?.shape ?? decision.path,
        });
        throw FORBIDDEN;
      }
      case 'allowed':
        log({
          app: decision.proxy.appSlug,
          proxyId: decision.proxy.id,
          path: decision.path,
          route: decision.route.path,
          outcome: 'forwarded',
        });
        setAllowed(request, decision);
        return true;
    }
  }
}
