import { runInNewContext } from 'node:vm';
import { compileAllowlist, RouteMatcher } from '@arrbiter/server/catalog';
import { AppConfig, TestClock } from '@arrbiter/server/config';
import { keyDigest } from '@arrbiter/server/crypto';
import { ProxyAccess } from './proxy-access';
import type { AppState, ProxyRegistry, ProxyState } from './proxy-registry';

jest.mock('@arrbiter/server/crypto', () => {
  const actual = jest.requireActual<typeof import('@arrbiter/server/crypto')>('@arrbiter/server/crypto');
  return { ...actual, keyDigest: jest.fn(actual.keyDigest) };
});

/** A registry with one active app (`known`) without proxies, recording the lookups the checks make. */
function fakeRegistry(calls: string[]): ProxyRegistry {
  const known: AppState = {
    id: 'app-1',
    slug: 'known',
    active: true,
    templateId: null,
    proxies: new Map(),
    previousKeys: new Map(),
  };
  return {
    app: (slug: string) => {
      calls.push('app');
      return slug === 'known' ? known : undefined;
    },
    isUpstreamKey: () => {
      calls.push('upstream key');
      return false;
    },
  } as unknown as ProxyRegistry;
}

const DIRECT = { proxyChecks: 'direct' } as AppConfig;

/** The work one refused check did: registry lookups and key digests. */
function workOf(slug: string, key: string): { outcome: string; calls: string[] } {
  const calls: string[] = [];
  jest.mocked(keyDigest).mockClear();
  const decision = new ProxyAccess(fakeRegistry(calls), new TestClock(), DIRECT).authenticate(
    `/proxy/${slug}/api/v3/movie`,
    {
      'x-api-key': key,
    },
  );
  calls.push(...jest.mocked(keyDigest).mock.calls.map(() => 'digest'));
  return { outcome: decision.outcome, calls };
}

describe(ProxyAccess.name, () => {
  it('does the same work for an unknown slug as for a known one with a wrong key', () => {
    const known = workOf('known', 'b'.repeat(32));
    const unknown = workOf('nobody', 'a'.repeat(32));
    expect(known.outcome).toBe('unauthorized');
    expect(unknown).toEqual(known);
    expect(known.calls.sort()).toEqual(['app', 'digest', 'upstream key']);
  });

  describe('a rotated key', () => {
    const CURRENT = 'c'.repeat(32);
    const PREVIOUS = 'e'.repeat(32);
    const clock = new TestClock();
    const proxy = {
      id: 'proxy-1',
      active: true,
      keyDigest: keyDigest(CURRENT),
      previousKey: { digest: keyDigest(PREVIOUS), validUntil: clock.now() + 60_000 },
    } as ProxyState;
    const app: AppState = {
      id: 'app-1',
      slug: 'rotated',
      active: true,
      templateId: null,
      proxies: new Map([[proxy.keyDigest, proxy]]),
      previousKeys: new Map([[keyDigest(PREVIOUS), proxy]]),
    };
    const registry = { app: (slug: string) => (slug === 'rotated' ? app : undefined), isUpstreamKey: () => false };
    const access = new ProxyAccess(registry as unknown as ProxyRegistry, clock, DIRECT);
    const call = (key: string) => access.authenticate('/proxy/rotated/api/v3/movie', { 'x-api-key': key });

    it('authenticates the current key, and the previous one as such until its grace period ends', () => {
      expect(call(CURRENT)).toMatchObject({ outcome: 'authenticated', proxy, previousKey: false });
      expect(call(PREVIOUS)).toMatchObject({ outcome: 'authenticated', proxy, previousKey: true });
      clock.advance(30_000);
      expect(call(PREVIOUS)).toMatchObject({ outcome: 'authenticated', previousKey: true });
      // Once it has ended, without any reload.
      clock.advance(30_000);
      expect(call(PREVIOUS)).toEqual({ outcome: 'unauthorized', slug: 'rotated' });
      expect(call(CURRENT)).toMatchObject({ outcome: 'authenticated', previousKey: false });
    });

    it("never takes another app's previous key", () => {
      expect(access.authenticate('/proxy/other/api/v3/movie', { 'x-api-key': PREVIOUS })).toEqual({
        outcome: 'unauthorized',
        slug: 'other',
      });
    });
  });
});

describe("ProxyAccess.authorize's memo of allowed verdicts (PROXY_CHECKS=direct)", () => {
  const catalog = new RouteMatcher([{ path: '/api/v3/movie' }, { path: '/api/v3/movie/{id}' }]);
  /** A proxy state as the registry builds one: a change to the proxy makes a new object. */
  const state = (grants: Record<string, string[]>, learningUntil = 0): ProxyState =>
    ({
      id: 'proxy-1',
      learningUntil,
      service: { type: 'radarr', catalog },
      ...compileAllowlist(catalog, grants),
    }) as unknown as ProxyState;
  const registry = {} as unknown as ProxyRegistry;

  it('answers the same allowed verdict again without resolving the route, and refusals afresh', () => {
    const access = new ProxyAccess(registry, new TestClock(), DIRECT);
    const proxy = state({ '/api/v3/movie/{id}': ['get'] });
    const resolve = jest.spyOn(catalog, 'resolve');
    try {
      const first = access.authorize(proxy, 'GET', '/api/v3/movie/1');
      expect(first).toMatchObject({ outcome: 'allowed', path: '/api/v3/movie/1' });
      expect(access.authorize(proxy, 'GET', '/api/v3/movie/1')).toBe(first);
      expect(resolve).toHaveBeenCalledTimes(1);
      // Another method, path or proxy is decided on its own.
      expect(access.authorize(proxy, 'DELETE', '/api/v3/movie/1')).toMatchObject({ outcome: 'forbidden' });
      expect(access.authorize(proxy, 'DELETE', '/api/v3/movie/1')).toMatchObject({ outcome: 'forbidden' });
      expect(access.authorize(proxy, 'GET', '/api/v3/movie/2')).toMatchObject({ outcome: 'allowed' });
      expect(resolve).toHaveBeenCalledTimes(4);
    } finally {
      resolve.mockRestore();
    }
  });

  it('never answers from a state the proxy has left: a revoked grant refuses at once', () => {
    const access = new ProxyAccess(registry, new TestClock(), DIRECT);
    const granted = state({ '/api/v3/movie/{id}': ['get'] });
    expect(access.authorize(granted, 'GET', '/api/v3/movie/1').outcome).toBe('allowed');
    // The registry's new state after the revocation: same proxy id, a new object.
    const revoked = state({ '/api/v3/movie': ['get'] });
    expect(access.authorize(revoked, 'GET', '/api/v3/movie/1').outcome).toBe('forbidden');
  });

  it('keeps no learned verdict: learning mode ends on the clock, without a new state', () => {
    const clock = new TestClock();
    const access = new ProxyAccess(registry, clock, DIRECT);
    const learning = state({ '/api/v3/movie': ['get'] }, clock.now() + 1_000);
    expect(access.authorize(learning, 'GET', '/api/v3/movie/1').outcome).toBe('learned');
    clock.advance(2_000);
    expect(access.authorize(learning, 'GET', '/api/v3/movie/1').outcome).toBe('forbidden');
  });

  it('holds a bounded number of verdicts, and none for long paths', () => {
    const access = new ProxyAccess(registry, new TestClock(), DIRECT);
    const proxy = state({ '/api/v3/movie/{id}': ['get'] });
    const memo = (access as unknown as { memo: Map<string, unknown> }).memo;
    for (let id = 0; id < 5_000; id++) access.authorize(proxy, 'GET', `/api/v3/movie/${id}`);
    expect(memo.size).toBeLessThanOrEqual(4_096);
    expect(memo.size).toBeGreaterThan(0);
    memo.clear();
    expect(access.authorize(proxy, 'GET', `/api/v3/movie/${'1'.repeat(300)}`).outcome).toBe('allowed');
    expect(memo.size).toBe(0);
  });

  it('keeps no state alive: a replaced state goes with its verdicts', async () => {
    // `--expose-gc`, as `npm test` runs jest; jest's test contexts do not copy `gc` from the process.
    const gc = runInNewContext('typeof gc === "function" ? gc : undefined') as (() => void) | undefined;
    if (gc === undefined) throw new Error('run jest with NODE_OPTIONS=--expose-gc, as npm test does');
    const access = new ProxyAccess(registry, new TestClock(), DIRECT);
    const held = (() => {
      const replaced = state({ '/api/v3/movie/{id}': ['get'] });
      expect(access.authorize(replaced, 'GET', '/api/v3/movie/1').outcome).toBe('allowed');
      return new WeakRef(replaced);
    })();
    // A WeakRef's target lives at least until the end of the job that made it.
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    expect(held.deref()).toBeUndefined();
  });

  it('decides every call afresh with PROXY_CHECKS=nest', () => {
    const access = new ProxyAccess(registry, new TestClock(), { proxyChecks: 'nest' } as AppConfig);
    const proxy = state({ '/api/v3/movie/{id}': ['get'] });
    const first = access.authorize(proxy, 'GET', '/api/v3/movie/1');
    expect(access.authorize(proxy, 'GET', '/api/v3/movie/1')).not.toBe(first);
    expect(access.authorize(proxy, 'GET', '/api/v3/movie/1')).toEqual(first);
  });
});
