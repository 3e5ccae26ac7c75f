import { TestClock } from '@arrbiter/server/config';
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

/** The work one refused check did: registry lookups and key digests. */
function workOf(slug: string, key: string): { outcome: string; calls: string[] } {
  const calls: string[] = [];
  jest.mocked(keyDigest).mockClear();
  const decision = new ProxyAccess(fakeRegistry(calls), new TestClock()).authenticate(`/proxy/${slug}/api/v3/movie`, {
    'x-api-key': key,
  });
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
    const access = new ProxyAccess(registry as unknown as ProxyRegistry, clock);
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
