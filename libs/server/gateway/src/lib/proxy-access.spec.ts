import { TestClock } from '@arrbiter/server/config';
import { keyDigest } from '@arrbiter/server/crypto';
import { ProxyAccess } from './proxy-access';
import type { AppState, ProxyRegistry } from './proxy-registry';

jest.mock('@arrbiter/server/crypto', () => {
  const actual = jest.requireActual<typeof import('@arrbiter/server/crypto')>('@arrbiter/server/crypto');
  return { ...actual, keyDigest: jest.fn(actual.keyDigest) };
});

/** A registry with one active app (`known`) without proxies, recording the lookups the checks make. */
function fakeRegistry(calls: string[]): ProxyRegistry {
  const known: AppState = { id: 'app-1', slug: 'known', active: true, templateId: null, proxies: new Map() };
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
});
