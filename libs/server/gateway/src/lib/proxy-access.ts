import type { IncomingHttpHeaders } from 'node:http';
import { Injectable } from '@nestjs/common';
import { Clock } from '@arrbiter/server/config';
import { mayLearn } from '@arrbiter/server/proxies';
import { isHttpMethod, moreSpecific, ResolvedRoute } from '@arrbiter/server/catalog';
import { keyDigest, PROXY_KEY_PATTERN } from '@arrbiter/server/crypto';
import { canonicalizePath, splitProxyUrl, takeApiKey } from './canonical-path';
import { AllowedRequest } from './proxy-context';
import { ProxyRegistry, ProxyState } from './proxy-registry';

const NO_PROXIES: ReadonlyMap<string, ProxyState> = new Map();

/** The proxy's verdict on a request, before anything is forwarded. */
export type AccessDecision =
  | { outcome: 'unauthorized'; slug: string }
  | { outcome: 'bad-path'; proxy: ProxyState; reason: string }
  | { outcome: 'forbidden'; proxy: ProxyState; method: string; path: string; route: ResolvedRoute | undefined }
  | ({ outcome: 'allowed' } & AllowedRequest)
  /** Outside the allowlist, forwarded anyway: the proxy is in learning mode. */
  | {
      outcome: 'learned';
      proxy: ProxyState;
      method: string;
      path: string;
      query: string;
      route: ResolvedRoute | undefined;
    };

/**
 * The checks of the proxy route (design §3), in order: credential, app and proxy state, canonical
 * path, route resolution, allowlist (a proxy in learning mode lets what the allowlist refuses through,
 * until its deadline). Pure and in memory: shared by the request and the upgrade
 * handlers of the gateway, and never a database query.
 */
@Injectable()
export class ProxyAccess {
  constructor(
    private readonly registry: ProxyRegistry,
    private readonly clock: Clock,
  ) {}

  check(method: string, url: string, headers: IncomingHttpHeaders): AccessDecision {
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
    const proxy = (app?.proxies ?? NO_PROXIES).get(digest);
    if (!app?.active || upstreamKey || !proxy?.active) return unauthorized;

    const canonical = canonicalizePath(target.rawPath);
    if (!canonical.ok) return { outcome: 'bad-path', proxy, reason: canonical.reason };
    const verb = method.toLowerCase();
    if (!isHttpMethod(verb))
      return { outcome: 'forbidden', proxy, method: verb, path: canonical.path, route: undefined };
    const route = moreSpecific(
      proxy.service.catalog.resolve(canonical.segments, verb),
      proxy.extraRoutes?.resolve(canonical.segments, verb),
    );
    if (!route || !proxy.allowlist.allows(route.shape, verb)) {
      // Learning opens only the API and its feeds, never what hands out secrets or controls the server
      // (the upstream's own key is one GET /config/host away): those stay refused, as ordinary warnings.
      if (
        proxy.learningUntil > 0 &&
        this.clock.now() < proxy.learningUntil &&
        mayLearn(canonical.path) &&
        (route === undefined || mayLearn(route.path))
      )
        return { outcome: 'learned', proxy, method: verb, path: canonical.path, query, route };
      return { outcome: 'forbidden', proxy, method: verb, path: canonical.path, route };
    }
    return { outcome: 'allowed', proxy, path: canonical.path, query, route };
  }
}
