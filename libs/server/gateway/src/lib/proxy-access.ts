import type { IncomingHttpHeaders } from 'node:http';
import { Injectable } from '@nestjs/common';
import { AppConfig, Clock } from '@arrbiter/server/config';
import { mayLearn } from '@arrbiter/server/permissions';
import { canonicalizePath, isHttpMethod, ResolvedRoute, resolveProxyRoute } from '@arrbiter/server/catalog';
import { keyDigest, PROXY_KEY_PATTERN } from '@arrbiter/server/crypto';
import { splitProxyUrl, takeApiKey } from './proxy-url';
import { ProxyRegistry, ProxyState } from './proxy-registry';

const NO_PROXIES: ReadonlyMap<string, ProxyState> = new Map();

/**
 * `authorize`'s allowed verdicts kept for the next call of the same method and raw path on the same
 * proxy state (`PROXY_CHECKS=direct`; measured with the direct calls:
 * docs/decisions/proxy-checks-direct.md). Held by the state itself (a `WeakMap`): a state the registry
 * has replaced goes, with its verdicts, once nothing else holds it. At most `MEMO_ENTRIES` verdicts
 * are added before the memo starts afresh, and only for paths up to `MEMO_PATH_LENGTH` characters.
 */
const MEMO_ENTRIES = 4_096;
const MEMO_PATH_LENGTH = 256;

type Allowed = Extract<Authorization, { outcome: 'allowed' }>;

/** Allowed verdicts by proxy state, method and raw path: two lookups and no string built per call. */
class VerdictMemo {
  private byState = new WeakMap<ProxyState, Map<string, Map<string, Allowed>>>();
  private added = 0;

  /** Verdicts added since the memo last started afresh (at most `MEMO_ENTRIES`). */
  get size(): number {
    return this.added;
  }

  get(proxy: ProxyState, method: string, rawPath: string): Allowed | undefined {
    return this.byState.get(proxy)?.get(method)?.get(rawPath);
  }

  set(proxy: ProxyState, method: string, rawPath: string, verdict: Allowed): void {
    if (rawPath.length > MEMO_PATH_LENGTH) return;
    if (this.added >= MEMO_ENTRIES) this.clear();
    let methods = this.byState.get(proxy);
    if (methods === undefined) this.byState.set(proxy, (methods = new Map()));
    let paths = methods.get(method);
    if (paths === undefined) methods.set(method, (paths = new Map()));
    paths.set(rawPath, verdict);
    this.added += 1;
  }

  clear(): void {
    this.byState = new WeakMap();
    this.added = 0;
  }
}

/** Who is calling: the credential check's verdict (the guard's half of the checks). */
export type Authentication =
  | { outcome: 'unauthorized'; slug: string }
  | {
      outcome: 'authenticated';
      proxy: ProxyState;
      /** Everything after `/proxy/{slug}`, raw. */
      rawPath: string;
      /** The raw query without any `apikey` parameter. */
      query: string;
      /** The key the caller presented (responses carry it where the upstream wrote its own). */
      key: string;
      /** The key is the proxy's previous one, in its grace period (its use is counted). */
      previousKey: boolean;
    };

/** What may be done: the allowlist's verdict on an authenticated request (the interceptor's half). */
export type Authorization =
  | { outcome: 'bad-path'; reason: string }
  | { outcome: 'forbidden'; method: string; path: string; route: ResolvedRoute | undefined }
  | { outcome: 'allowed'; path: string; route: ResolvedRoute }
  /** Outside the allowlist, forwarded anyway: the proxy is in learning mode. */
  | { outcome: 'learned'; method: string; path: string; route: ResolvedRoute | undefined };

/**
 * The checks of the proxy route (docs/architecture.md), in order: credential, app and proxy state
 * (`authenticate`), then canonical path, route resolution and allowlist (`authorize`; a proxy in
 * learning mode lets what the allowlist refuses through, until its deadline). Pure and in memory, never
 * a database query.
 */
@Injectable()
export class ProxyAccess {
  /** Allowed verdicts by proxy state, method and raw path, or null when `PROXY_CHECKS=nest`. */
  private readonly memo: VerdictMemo | null;

  constructor(
    private readonly registry: ProxyRegistry,
    private readonly clock: Clock,
    config: AppConfig,
  ) {
    this.memo = config.proxyChecks === 'direct' ? new VerdictMemo() : null;
  }

  authenticate(url: string, headers: IncomingHttpHeaders): Authentication {
    const target = splitProxyUrl(url);
    if (!target) return { outcome: 'unauthorized', slug: '' };
    const unauthorized = { outcome: 'unauthorized', slug: target.slug } as const;
    const { query, apiKey: queryKey } = takeApiKey(target.rawQuery);
    const header = headers['x-api-key'];
    // The header wins when both are present.
    const key = typeof header === 'string' && header !== '' ? header : queryKey;
    // The same work whether the slug exists or not (digest and both lookups), so that a refusal's
    // timing does not tell which slugs exist.
    const digest = key !== undefined && PROXY_KEY_PATTERN.test(key) ? keyDigest(key) : undefined;
    const app = this.registry.app(target.slug);
    if (digest === undefined) return unauthorized;
    // An upstream's own key is never a proxy credential.
    const upstreamKey = this.registry.isUpstreamKey(digest);
    // Keyed by digest: a hit is an exact match (what a lookup's timing could tell is about the digest,
    // never the key), so no further comparison is needed.
    let proxy = (app?.proxies ?? NO_PROXIES).get(digest);
    let previousKey = false;
    if (proxy === undefined) {
      // Only on a miss, so a current key pays nothing: a key replaced by a rotation works until its
      // grace period ends, checked here against the clock (no reload is needed when it ends).
      const replaced = (app?.previousKeys ?? NO_PROXIES).get(digest);
      if (replaced?.previousKey && this.clock.now() < replaced.previousKey.validUntil) {
        proxy = replaced;
        previousKey = true;
      }
    }
    if (!app?.active || upstreamKey || !proxy?.active) return unauthorized;
    return { outcome: 'authenticated', proxy, rawPath: target.rawPath, query, key: key as string, previousKey };
  }

  authorize(proxy: ProxyState, method: string, rawPath: string): Authorization {
    const memo = this.memo;
    if (memo === null) return this.decide(proxy, method, rawPath);
    // Allowed is allowed until the state changes (a new object): neither the clock nor learning mode
    // enters into it. Every other verdict is reached afresh.
    const hit = memo.get(proxy, method, rawPath);
    if (hit !== undefined) return hit;
    const verdict = this.decide(proxy, method, rawPath);
    if (verdict.outcome === 'allowed') memo.set(proxy, method, rawPath, verdict);
    return verdict;
  }

  private decide(proxy: ProxyState, method: string, rawPath: string): Authorization {
    const canonical = canonicalizePath(rawPath);
    if (!canonical.ok) return { outcome: 'bad-path', reason: canonical.reason };
    const verb = method.toLowerCase();
    if (!isHttpMethod(verb)) return { outcome: 'forbidden', method: verb, path: canonical.path, route: undefined };
    const route = resolveProxyRoute(proxy.service.catalog, proxy.extraRoutes, canonical.segments, verb);
    if (route && proxy.allowlist.allows(route.shape, verb)) return { outcome: 'allowed', path: canonical.path, route };
    // Learning opens only the API and its feeds, never what hands out secrets or controls the server
    // (the upstream's own key is one GET /config/host away, or /settings/general in v5): by the route's
    // name, segments and its description's schemas (`routeRisk`), those stay refused, as ordinary warnings.
    if (
      proxy.learningUntil > 0 &&
      this.clock.now() < proxy.learningUntil &&
      mayLearn(proxy.service.type, verb, canonical.path, route)
    )
      return { outcome: 'learned', method: verb, path: canonical.path, route };
    return { outcome: 'forbidden', method: verb, path: canonical.path, route };
  }
}
