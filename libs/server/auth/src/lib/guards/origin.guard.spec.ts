import { ExecutionContext, ForbiddenException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppConfig } from '@arrbiter/server/config';
import { OriginGuard } from './origin.guard';

function contextFor(method: string, headers: Record<string, string>, skip = false, type = 'http'): ExecutionContext {
  const handler = () => undefined;
  return {
    getType: () => type,
    switchToHttp: () => ({ getRequest: () => ({ method, headers }) }),
    getHandler: () => handler,
    getClass: () => (skip ? SkippedController : PlainController),
  } as unknown as ExecutionContext;
}
class PlainController {}
class SkippedController {}

describe(OriginGuard.name, () => {
  const reflector = {
    getAllAndOverride: (_key: string, [, type]: unknown[]) => type === SkippedController,
  } as unknown as Reflector;
  const config = { allowedOrigins: ['https://arr.example', 'https://other.example'] } as unknown as AppConfig;
  const guard = new OriginGuard(reflector, config);

  it("stands aside on the proxy route's pipeline (context type 'proxy'), where the proxy key is the credential", () => {
    expect(guard.canActivate(contextFor('POST', {}, false, 'proxy'))).toBe(true);
    expect(() => guard.canActivate(contextFor('POST', {}))).toThrow(ForbiddenException);
  });

  it('lets reads through without any origin', () => {
    expect(guard.canActivate(contextFor('GET', {}))).toBe(true);
    expect(guard.canActivate(contextFor('HEAD', {}))).toBe(true);
  });

  it.each(['POST', 'PUT', 'PATCH', 'DELETE'])('accepts a %s from an allowed Origin or Referer', (method) => {
    expect(guard.canActivate(contextFor(method, { origin: 'https://other.example' }))).toBe(true);
    expect(guard.canActivate(contextFor(method, { referer: 'https://arr.example/apps/1?tab=x' }))).toBe(true);
  });

  it.each([
    [{}, /must carry an Origin/],
    [{ origin: 'null' }, /must carry an Origin/],
    [{ origin: 'https://evil.example' }, /not allowed/],
    [{ origin: 'https://arr.example.evil.example' }, /not allowed/],
    [{ referer: 'not a url' }, /must carry an Origin/],
    // Origin wins over Referer: a forged page cannot borrow a good Referer.
    [{ origin: 'https://evil.example', referer: 'https://arr.example/' }, /not allowed/],
  ])('refuses a write with %j', (headers, message) => {
    expect(() => guard.canActivate(contextFor('POST', headers))).toThrow(ForbiddenException);
    expect(() => guard.canActivate(contextFor('POST', headers))).toThrow(message);
  });

  it('skips routes marked @SkipOriginCheck()', () => {
    expect(guard.canActivate(contextFor('POST', {}, true))).toBe(true);
  });
});
