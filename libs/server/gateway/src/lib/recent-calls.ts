import type { IncomingMessage } from 'node:http';
import { Inject, Injectable, Logger, OnModuleDestroy, Optional } from '@nestjs/common';
import type { RecentCallDto, RecentCallOutcome, RecentCallsResponse } from '@arrbiter/contracts';
import { canonicalizePath, isHttpMethod, resolveProxyRoute } from '@arrbiter/server/catalog';
import { Clock } from '@arrbiter/server/config';
import { ChangeBus, ChangeRelay } from '@arrbiter/server/database';
import { routeRisk } from '@arrbiter/server/permissions';
import type { AccessLogFields } from './proxy-context';
import { splitProxyUrl } from './proxy-url';
import { ProxyRegistry, ProxyState } from './proxy-registry';

/** How long one opening of the view records a proxy's calls (each poll extends it). */
export const RECENT_CALLS_ARMED_MS = 10 * 60_000;
/** A poll re-announces the arming to the other replicas only when less than this remains of it. */
export const RECENT_CALLS_REANNOUNCE_MS = 5 * 60_000;
/** Calls kept per proxy and replica. */
export const RECENT_CALLS_KEPT = 100;
/** A path longer than this (a 401's, which no route bounds) is cut. */
const MAX_PATH = 2_048;

/** One call as the access line saw it; the risk is left to the view. */
export interface RecentCall {
  at: number;
  method: string;
  path: string;
  route: string | null;
  outcome: RecentCallOutcome;
  status: number;
}

/** The last `RECENT_CALLS_KEPT` calls, overwritten in place. */
export class CallRing {
  private readonly entries: RecentCall[] = [];
  private next = 0;

  constructor(private readonly size = RECENT_CALLS_KEPT) {}

  push(call: RecentCall): void {
    if (this.entries.length < this.size) this.entries.push(call);
    else this.entries[this.next] = call;
    this.next = (this.next + 1) % this.size;
  }

  /** Newest first. */
  newestFirst(): RecentCall[] {
    const count = this.entries.length;
    const out: RecentCall[] = new Array<RecentCall>(count);
    for (let i = 0; i < count; i++) out[i] = this.entries[(this.next - 1 - i + count * 2) % count];
    return out;
  }
}

interface Armed {
  /** Epoch milliseconds. */
  until: number;
  /**
   * The app's slug (a 401 names only a slug); null while the proxy state does not hold the proxy yet
   * (another replica's announcement can arrive before the new proxy is loaded here), looked up then.
   */
  slug: string | null;
  ring: CallRing;
}

/** The outcome shown for an access line's, or undefined for calls the view leaves out (a 400 bad path). */
function outcomeOf(outcome: AccessLogFields['outcome']): RecentCallOutcome | undefined {
  switch (outcome) {
    case 'forwarded':
    case 'upstream-unreachable':
    case 'upstream-timeout':
      return 'allowed';
    case 'forbidden':
      return 'refused';
    case 'rate-limited':
      return 'rate-limited';
    case 'unauthorized':
      return 'unauthorized';
    case 'bad-path':
      return undefined;
  }
}

/** The path after the slug, canonical when it can be, never the query. */
function pathAfterSlug(url: string | undefined): string {
  const raw = splitProxyUrl(url ?? '')?.rawPath ?? '';
  const canonical = canonicalizePath(raw);
  const path = canonical.ok ? canonical.path : raw || '/';
  return path.length > MAX_PATH ? path.slice(0, MAX_PATH) : path;
}

/**
 * "First calls, live" (the connect flow's last step, the proxy's Connection tab): while a proxy's view
 * is open, the calls it receives, kept in memory on each replica.
 *
 * Opening (or polling) the view arms the proxy for `RECENT_CALLS_ARMED_MS`, and the arming is announced
 * on the change relay (topic `recent-calls`) so that every replica records it too: when it is new, or
 * when less than `RECENT_CALLS_REANNOUNCE_MS` remains, not on every poll. `AccessLog` feeds `record`
 * from the access line's close handler, the one place that sees every outcome, and only while `armed`
 * is true: with nothing armed a call costs that one boolean check. A ring holds at most
 * `RECENT_CALLS_KEPT` calls and is dropped when its arming ends. 401s name only a slug: they go into
 * the rings of every armed proxy of that app, with the path after the slug (never the query, so never
 * a key sent there). Nothing here touches the database on a call's path.
 */
@Injectable()
export class RecentCalls implements OnModuleDestroy {
  /** Whether any proxy is armed: the per-call check. */
  armed = false;
  private readonly logger = new Logger(RecentCalls.name);
  private readonly proxies = new Map<string, Armed>();
  private expiry?: NodeJS.Timeout;
  private expiresAt = Infinity;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly registry: ProxyRegistry,
    private readonly clock: Clock,
    private readonly changes: ChangeBus,
    @Optional() @Inject(ChangeRelay) private readonly relay: ChangeRelay | null = null,
  ) {
    // Another replica's view was opened: record here too (this replica's own announcement is armed already).
    this.unsubscribe = changes.subscribe((change) => {
      if (change.topic === 'recent-calls' && change.origin === 'remote' && change.id !== undefined) this.arm(change.id);
    });
  }

  onModuleDestroy(): void {
    this.unsubscribe();
    clearTimeout(this.expiry);
    this.proxies.clear();
    this.armed = false;
  }

  /**
   * Arms a proxy on this replica for `RECENT_CALLS_ARMED_MS` from now. Returns whether the other
   * replicas should be told (new, or running out).
   */
  arm(proxyId: string): boolean {
    const slug = this.registry.proxy(proxyId)?.appSlug ?? null;
    const now = this.clock.now();
    const until = now + RECENT_CALLS_ARMED_MS;
    const current = this.proxies.get(proxyId);
    if (current !== undefined && current.until > now) {
      const announce = current.until - now < RECENT_CALLS_REANNOUNCE_MS;
      current.until = until;
      if (slug !== null) current.slug = slug;
      return announce;
    }
    this.proxies.set(proxyId, { until, slug, ring: new CallRing() });
    this.armed = true;
    this.scheduleExpiry(until);
    return true;
  }

  /** Until when a proxy is armed on this replica (epoch milliseconds), or undefined. */
  armedUntil(proxyId: string): number | undefined {
    const current = this.proxies.get(proxyId);
    return current !== undefined && current.until > this.clock.now() ? current.until : undefined;
  }

  /** From the access line's close handler, only while `armed`: no query, a few map reads. */
  record(request: IncomingMessage, fields: AccessLogFields, status: number): void {
    const outcome = outcomeOf(fields.outcome);
    if (outcome === undefined) return;
    const now = this.clock.now();
    if (outcome === 'unauthorized') {
      let call: RecentCall | undefined;
      for (const [id, armed] of this.proxies) {
        if (armed.until <= now) continue;
        armed.slug ??= this.registry.proxy(id)?.appSlug ?? null;
        if (armed.slug !== fields.app) continue;
        call ??= { at: now, method: fields.method, path: pathAfterSlug(request.url), route: null, outcome, status };
        armed.ring.push(call);
      }
      return;
    }
    if (fields.proxyId === undefined) return;
    const armed = this.proxies.get(fields.proxyId);
    if (armed === undefined || armed.until <= now) return;
    armed.ring.push({
      at: now,
      method: fields.method,
      path: fields.path ?? pathAfterSlug(request.url),
      route: outcome === 'rate-limited' ? null : (fields.route ?? null),
      outcome,
      status,
    });
  }

  /**
   * `GET /api/admin/v1/proxies/:id/recent-calls`: arms the proxy (announcing it when due) and answers
   * this replica's calls, newest first, each with its route's risk; undefined for an unknown proxy.
   */
  async view(proxyId: string): Promise<RecentCallsResponse | undefined> {
    const proxy = this.registry.proxy(proxyId);
    if (proxy === undefined) return undefined;
    if (this.arm(proxyId)) await this.announce(proxyId);
    const armed = this.proxies.get(proxyId) as Armed;
    const replicas = (await this.relay?.replicas()) ?? 1;
    return {
      items: armed.ring.newestFirst().map((call) => this.describe(proxy, call)),
      replicas,
      armedUntil: new Date(armed.until).toISOString(),
    };
  }

  private describe(proxy: ProxyState, call: RecentCall): RecentCallDto {
    const risky = call.outcome === 'allowed' || call.outcome === 'refused';
    return {
      at: new Date(call.at).toISOString(),
      // Lower case, as allowlists and warnings write it.
      method: call.method.toLowerCase(),
      path: call.path,
      route: call.route,
      outcome: call.outcome,
      status: call.status,
      risk: risky ? riskOf(proxy, call) : null,
    };
  }

  private async announce(proxyId: string): Promise<void> {
    try {
      await this.changes.publish('recent-calls', proxyId);
    } catch (error) {
      this.logger.warn(`Could not announce a proxy's recent-calls view: ${(error as Error).message}`);
    }
  }

  /** One timer, for the earliest arming's end: it drops every ring whose arming is over. */
  private scheduleExpiry(until: number): void {
    if (until >= this.expiresAt && this.expiry !== undefined) return;
    clearTimeout(this.expiry);
    this.expiresAt = until;
    this.expiry = setTimeout(() => this.expire(), Math.max(0, until - this.clock.now()));
    this.expiry.unref();
  }

  private expire(): void {
    this.expiry = undefined;
    this.expiresAt = Infinity;
    const now = this.clock.now();
    let next = Infinity;
    for (const [id, armed] of this.proxies) {
      if (armed.until <= now) this.proxies.delete(id);
      else next = Math.min(next, armed.until);
    }
    this.armed = this.proxies.size > 0;
    if (next !== Infinity) this.scheduleExpiry(next);
  }
}

/** The route's risk by the permissions lib's rule, read against the proxy's route tables as they are now. */
function riskOf(proxy: ProxyState, call: RecentCall): RecentCallDto['risk'] {
  const verb = call.method.toLowerCase();
  const canonical = canonicalizePath(call.path);
  const route =
    canonical.ok && isHttpMethod(verb)
      ? resolveProxyRoute(proxy.service.catalog, proxy.extraRoutes, canonical.segments, verb)
      : undefined;
  return routeRisk(
    proxy.service.type,
    undefined,
    verb,
    route ? { path: route.path, operations: route.operations } : (call.route ?? call.path),
  );
}
