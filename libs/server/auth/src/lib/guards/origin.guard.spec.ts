import { ExecutionContext, ForbiddenException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppConfig, ExternalUrls, TrustedProxies } from '@arrbiter/server/config';
import { OriginGuard } from './origin.guard';

function contextFor(method: string, headers: Record<string, string>, skip = false, type = 'http'): ExecutionContext {
  const handler = () => undefined;
  return {
    getType: () => type,
    switchToHttp: () => ({ getRequest: () => ({ method, headers, socket: { remoteAddress: '10.0.0.9' } }) }),
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
  const config = {
    port: 8080,
    publicUrl: 'https://arr.example',
    publicOrigin: 'https://arr.example',
    secureCookies: true,
    allowedOrigins: ['https://arr.example', 'https://other.example'],
  } as unknown as AppConfig;
  const guard = new OriginGuard(reflector, config, new ExternalUrls(config, new TrustedProxies(false)));

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

  it("with PUBLIC_URL set, refuses the request's own origin and names PUBLIC_URL and ALLOWED_ORIGINS", () => {
    const write = contextFor('POST', { host: 'nas:18080', origin: 'http://nas:18080' });
    expect(() => guard.canActivate(write)).toThrow(/PUBLIC_URL is https:\/\/arr\.example.*ALLOWED_ORIGINS/);
  });

  describe('with PUBLIC_URL unset', () => {
    const unset = {
      port: 8080,
      secureCookies: false,
      allowedOrigins: ['https://other.example'],
    } as unknown as AppConfig;
    const open = new OriginGuard(reflector, unset, new ExternalUrls(unset, new TrustedProxies(false)));

    it("accepts a write from the request's own scheme, host and port, and ALLOWED_ORIGINS", () => {
      expect(open.canActivate(contextFor('POST', { host: 'nas:18080', origin: 'http://nas:18080' }))).toBe(true);
      expect(open.canActivate(contextFor('POST', { host: 'NAS:18080', referer: 'http://nas:18080/apps' }))).toBe(true);
      expect(open.canActivate(contextFor('POST', { host: 'nas:80', origin: 'http://nas' }))).toBe(true);
      expect(open.canActivate(contextFor('POST', { host: 'nas:18080', origin: 'https://other.example' }))).toBe(true);
    });

    it.each([
      [{ host: 'nas:18080', origin: 'null' }, /must carry an Origin/],
      [{ host: 'nas:18080', origin: 'http://nas:18081' }, /PUBLIC_URL.*ALLOWED_ORIGINS/],
      [{ host: 'nas:18080', origin: 'http://evil.example' }, /PUBLIC_URL.*ALLOWED_ORIGINS/],
      [{ host: 'nas:18080', origin: 'https://nas:18080' }, /Only the scheme differs.*TRUST_PROXY.*PUBLIC_URL/],
      // Forwarded headers from a peer TRUST_PROXY does not name are ignored.
      [{ host: 'nas:18080', 'x-forwarded-host': 'evil.example', origin: 'http://evil.example' }, /not allowed/],
    ])('refuses a write with %j', (headers, message) => {
      expect(() => open.canActivate(contextFor('POST', headers))).toThrow(message);
    });
  });

  it('skips routes marked @SkipOriginCheck()', () => {
    expect(guard.canActivate(contextFor('POST', {}, true))).toBe(true);
  });
});
