import { IncomingMessage, ServerResponse } from 'node:http';
import { Socket } from 'node:net';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import type { PreviousKeyUsage } from '@arrbiter/server/proxies';
import { RATE_LIMITED_ROUTE_KEY, type WarningRecorder } from '@arrbiter/server/warnings';
import { firstValueFrom, of } from 'rxjs';
import type { AccessLog } from './access-log';
import { AllowlistInterceptor } from './allowlist.interceptor';
import type { Authentication, Authorization, ProxyAccess } from './proxy-access';
import { proxyCallOf, ProxyRequest, setProxyCall } from './proxy-context';
import { ProxyExceptionFilter } from './proxy-exception.filter';
import { ProxyKeyGuard } from './proxy-key.guard';
import { PROXY_CONTEXT } from './proxy-gateway';
import { ProxyRefusal, UNAUTHORIZED_DETAIL } from './proxy-problem';
import type { ProxyState } from './proxy-registry';
import { RATE_LIMITED_DETAIL } from './proxy-key.guard';
import { RateLimiter } from './rate-limiter';
import { TestClock } from '@arrbiter/server/config';

const PROXY = { id: 'proxy-1', appId: 'app-1', appSlug: 'notifiarr', rateLimit: null } as ProxyState;
const limiter = () => new RateLimiter(new TestClock());
const recorder = () => ({ record: jest.fn() }) as unknown as WarningRecorder & { record: jest.Mock };
const usage = () => ({ record: jest.fn() }) as unknown as PreviousKeyUsage & { record: jest.Mock };

function request(method = 'GET', url = '/proxy/notifiarr/api/v3/movie'): ProxyRequest {
  const req = new IncomingMessage(new Socket());
  req.method = method;
  req.url = url;
  return req;
}

function context(req: IncomingMessage, res: unknown): ExecutionContextHost {
  const host = new ExecutionContextHost([req, res]);
  host.setType(PROXY_CONTEXT);
  return host;
}

function access(authentication: Authentication, authorization?: Authorization): ProxyAccess {
  return { authenticate: () => authentication, authorize: () => authorization } as unknown as ProxyAccess;
}

function refusalOf(run: () => unknown): ProxyRefusal {
  try {
    run();
  } catch (error) {
    if (error instanceof ProxyRefusal) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe(ProxyKeyGuard.name, () => {
  it('puts the authenticated proxy on the request', () => {
    const req = request();
    const uses = usage();
    const guard = new ProxyKeyGuard(
      access({
        outcome: 'authenticated',
        proxy: PROXY,
        rawPath: '/api/v3/movie',
        query: 'a=1',
        key: 'k',
        previousKey: false,
      }),
      limiter(),
      recorder(),
      uses,
    );
    expect(guard.canActivate(context(req, undefined))).toBe(true);
    expect(proxyCallOf(req)).toEqual({ proxy: PROXY, rawPath: '/api/v3/movie', query: 'a=1', key: 'k' });
    expect(uses.record).not.toHaveBeenCalled();
  });

  it("counts a call made with the proxy's previous key, even one it then refuses", () => {
    const rotated = {
      ...PROXY,
      previousKey: { digest: 'd'.repeat(64), validUntil: Date.now() + 60_000 },
      rateLimit: { perMinute: 1, burst: 1 },
    } as ProxyState;
    const uses = usage();
    const guard = new ProxyKeyGuard(
      access({ outcome: 'authenticated', proxy: rotated, rawPath: '/', query: '', key: 'old', previousKey: true }),
      limiter(),
      recorder(),
      uses,
    );
    expect(guard.canActivate(context(request(), undefined))).toBe(true);
    expect(refusalOf(() => guard.canActivate(context(request(), undefined))).status).toBe(429);
    expect(uses.record.mock.calls).toEqual([
      ['proxy-1', 'd'.repeat(64)],
      ['proxy-1', 'd'.repeat(64)],
    ]);
  });

  it('refuses with the one 401 body, and 404 when the URL names no app', () => {
    const unauthorized = refusalOf(() =>
      new ProxyKeyGuard(
        access({ outcome: 'unauthorized', slug: 'nobody' }),
        limiter(),
        recorder(),
        usage(),
      ).canActivate(context(request(), undefined)),
    );
    expect([unauthorized.status, unauthorized.detail, unauthorized.fields]).toEqual([
      401,
      UNAUTHORIZED_DETAIL,
      { method: 'GET', app: 'nobody', outcome: 'unauthorized' },
    ]);
    const noApp = refusalOf(() =>
      new ProxyKeyGuard(access({ outcome: 'unauthorized', slug: '' }), limiter(), recorder(), usage()).canActivate(
        context(request(), undefined),
      ),
    );
    expect(noApp.status).toBe(404);
  });

  it("refuses beyond the proxy's rate limit with 429 and the seconds to wait", () => {
    const limited = { ...PROXY, rateLimit: { perMinute: 6, burst: 2 } } as ProxyState;
    const warnings = recorder();
    const guard = new ProxyKeyGuard(
      access({
        outcome: 'authenticated',
        proxy: limited,
        rawPath: '/api/v3/movie',
        query: '',
        key: 'k',
        previousKey: false,
      }),
      limiter(),
      warnings,
      usage(),
    );
    expect(guard.canActivate(context(request(), undefined))).toBe(true);
    expect(guard.canActivate(context(request(), undefined))).toBe(true);
    const refused = refusalOf(() => guard.canActivate(context(request(), undefined)));
    expect([refused.status, refused.detail, refused.retryAfterSeconds, refused.fields]).toEqual([
      429,
      RATE_LIMITED_DETAIL,
      10,
      { method: 'GET', app: 'notifiarr', proxyId: 'proxy-1', outcome: 'rate-limited' },
    ]);
    // Counted like a refused call, one row per proxy and method.
    expect(warnings.record).toHaveBeenCalledTimes(1);
    expect(warnings.record).toHaveBeenCalledWith({
      proxyId: 'proxy-1',
      appId: 'app-1',
      method: 'get',
      path: '/api/v3/movie',
      route: null,
      routeKey: RATE_LIMITED_ROUTE_KEY,
      rateLimited: true,
    });
  });
});

describe(AllowlistInterceptor.name, () => {
  const setUp = (authorization: Authorization) => {
    const recorded: unknown[] = [];
    const tracked: unknown[] = [];
    const interceptor = new AllowlistInterceptor(
      access({ outcome: 'unauthorized', slug: '' }, authorization),
      { record: (warning: unknown) => recorded.push(warning) } as unknown as WarningRecorder,
      { track: (_req: unknown, _res: unknown, fields: unknown) => tracked.push(fields) ?? 1 } as unknown as AccessLog,
    );
    const req = request('POST');
    setProxyCall(req, { proxy: PROXY, rawPath: '/api/v3/movie', query: '', key: 'k' });
    return { interceptor, req, recorded, tracked };
  };
  const next = { handle: () => of('forwarded') };

  it('lets an allowed call through to the handler, with its canonical path and access line', async () => {
    const { interceptor, req, recorded, tracked } = setUp({
      outcome: 'allowed',
      path: '/api/v3/movie',
      route: { path: '/api/v3/movie', shape: '/api/v3/movie' } as never,
    });
    const res = new ServerResponse(req);
    await expect(firstValueFrom(interceptor.intercept(context(req, res), next))).resolves.toBe('forwarded');
    expect(proxyCallOf(req).path).toBe('/api/v3/movie');
    expect(tracked).toEqual([
      {
        method: 'POST',
        app: 'notifiarr',
        proxyId: 'proxy-1',
        path: '/api/v3/movie',
        route: '/api/v3/movie',
        outcome: 'forwarded',
      },
    ]);
    expect(recorded).toEqual([]);
  });

  it('refuses what the allowlist does not grant with a 403 recorded as a warning, and a bad path with a 400', () => {
    const forbidden = setUp({ outcome: 'forbidden', method: 'post', path: '/api/v3/config/host', route: undefined });
    const refusal = refusalOf(() => forbidden.interceptor.intercept(context(forbidden.req, undefined), next));
    expect([refusal.status, refusal.fields.outcome]).toEqual([403, 'forbidden']);
    expect(forbidden.recorded).toEqual([
      expect.objectContaining({ proxyId: 'proxy-1', method: 'post', path: '/api/v3/config/host', learned: false }),
    ]);
    const badPath = setUp({ outcome: 'bad-path', reason: 'The path contains a backslash' });
    expect(refusalOf(() => badPath.interceptor.intercept(context(badPath.req, undefined), next)).status).toBe(400);
    expect(badPath.recorded).toEqual([]);
  });

  it('lets a learning call through and records it as learned', async () => {
    const { interceptor, req, recorded } = setUp({
      outcome: 'learned',
      method: 'post',
      path: '/api/v3/movie',
      route: undefined,
    });
    await firstValueFrom(interceptor.intercept(context(req, undefined), next));
    expect(recorded).toEqual([expect.objectContaining({ learned: true })]);
  });
});

describe(ProxyExceptionFilter.name, () => {
  const filter = () => {
    const tracked: unknown[] = [];
    const log = { track: (_q: unknown, _s: unknown, fields: unknown) => tracked.push(fields) } as unknown as AccessLog;
    return { filter: new ProxyExceptionFilter(log), tracked };
  };

  it('answers a refusal with its problem document and access line', () => {
    const { filter: f, tracked } = filter();
    const req = request();
    const res = new ServerResponse(req);
    const writes: unknown[] = [];
    res.writeHead = ((status: number) => writes.push(status) && res) as typeof res.writeHead;
    res.end = ((body: string) => writes.push(JSON.parse(body)) && res) as typeof res.end;
    const fields = { method: 'GET', app: 'x', outcome: 'unauthorized' } as const;
    expect(f.catch(new ProxyRefusal(401, UNAUTHORIZED_DETAIL, fields), context(req, res))).toBe(true);
    expect(writes).toEqual([
      401,
      { type: 'about:blank', title: 'Unauthorized', status: 401, detail: UNAUTHORIZED_DETAIL },
    ]);
    expect(tracked).toEqual([fields]);
  });

  it('answers any other exception with a 500 problem document, never its message', () => {
    const { filter: f } = filter();
    const req = request();
    const res = new ServerResponse(req);
    const writes: unknown[] = [];
    res.writeHead = ((status: number) => writes.push(status) && res) as typeof res.writeHead;
    res.end = ((body: string) => writes.push(JSON.parse(body)) && res) as typeof res.end;
    expect(f.catch(new Error('secret internals'), context(req, res))).toBe(true);
    expect(writes).toEqual([
      500,
      { type: 'about:blank', title: 'Internal Server Error', status: 500, detail: 'Internal server error' },
    ]);
  });

  it('refuses an upgrade on its socket', () => {
    const { filter: f } = filter();
    const socket = new Socket();
    const ended: unknown[] = [];
    socket.end = ((data: string) => ended.push(data) && socket) as typeof socket.end;
    f.catch(new ProxyRefusal(403, 'no', { method: 'GET', app: 'x', outcome: 'forbidden' }), context(request(), socket));
    expect(String(ended[0])).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
  });
});
