import type { Clock } from '@arrbiter/server/config';

/** One method on one route, within one hour. */
export interface RouteCount {
  count: number;
  /** Epoch milliseconds of the last call. */
  lastSeen: number;
}

/** One proxy's calls within one hour. */
export interface ProxyCount {
  forwarded: number;
  refused: number;
  errors: number;
  /** By route, then by method as the request spelled it (`GET`). */
  routes: Map<string, Map<string, RouteCount>>;
}

/** What was counted in one hour, by proxy id. */
export interface HourCount {
  /** The hour's start, epoch milliseconds. */
  hour: number;
  proxies: Map<string, ProxyCount>;
}

/**
 * A proxy's counts in the counter's current hour, with the route entry its last call added to: the
 * caller keeps it with the proxy (one per proxy) and hands it back with the proxy's next call, which
 * then finds its counts without looking them up. Stale once the hour ends or the counts are taken.
 */
export interface UsageSlot {
  readonly hour: HourCount;
  readonly proxy: ProxyCount;
  route: string | undefined;
  method: string | undefined;
  entry: RouteCount | undefined;
}

export const HOUR_MS = 3_600_000;

/** Route entries (proxy, hour, route, method) held between two writes at most; beyond, calls count without their route. */
export const MAX_ROUTE_ENTRIES = 20_000;

export function hourOf(epochMs: number): number {
  return epochMs - (((epochMs % HOUR_MS) + HOUR_MS) % HOUR_MS);
}

function emptyProxy(): ProxyCount {
  return { forwarded: 0, refused: 0, errors: 0, routes: new Map() };
}

/**
 * The proxy route's usage counters, in memory: per proxy and hour, calls forwarded, refused
 * and failed upstream, and per route and method the count and the last call. `count` runs once per call
 * when its access line is written, and only adds to numbers in maps keyed by strings the call already
 * holds (the proxy id of its state, the route of its catalog, Node's method string): it allocates only
 * for a proxy, route or method not seen yet this hour. With the proxy's `UsageSlot` handed back, a
 * call of the same route and method as the proxy's last finds its numbers without a lookup: the three
 * map lookups, on maps spread over 1,000 proxies, were most of `count` (0.65 % of a proxied call's CPU,
 * `--cpu-prof`, 2026-11-29 afternoon). `UsageRecorder` takes what was counted and
 * writes it behind. Bounded: past `MAX_ROUTE_ENTRIES` route entries, calls still count per proxy and
 * hour, without their route (`droppedRoutes`).
 */
export class UsageCounter {
  private current: HourCount;
  private hourEnd: number;
  /** Earlier hours not taken yet. */
  private sealed: HourCount[] = [];
  private routeEntries = 0;
  /** Route entries left out because of the bound, since start (calls still counted per hour). */
  droppedRoutes = 0;

  constructor(private readonly clock: Pick<Clock, 'now'>) {
    const hour = hourOf(clock.now());
    this.current = { hour, proxies: new Map() };
    this.hourEnd = hour + HOUR_MS;
  }

  /**
   * One call of a proxy's key: forwarded (`refused` false; `error` when it was answered 5xx) or refused.
   * `route` is the resolved route, or the canonical path without one, or null (no path known).
   */
  count(
    proxyId: string,
    method: string,
    route: string | null | undefined,
    refused: boolean,
    error: boolean,
    held?: UsageSlot,
  ): UsageSlot {
    const now = this.clock.now();
    if (now >= this.hourEnd) this.roll(now);
    let slot = held;
    if (slot === undefined || slot.hour !== this.current) slot = this.slot(proxyId);
    const proxy = slot.proxy;
    if (refused) proxy.refused += 1;
    else {
      proxy.forwarded += 1;
      if (error) proxy.errors += 1;
    }
    if (route === null || route === undefined) return slot;
    let entry = slot.entry;
    if (entry !== undefined && slot.route === route && slot.method === method) {
      entry.count += 1;
      entry.lastSeen = now;
      return slot;
    }
    entry = proxy.routes.get(route)?.get(method);
    if (entry !== undefined) {
      entry.count += 1;
      entry.lastSeen = now;
    } else {
      entry = { count: 1, lastSeen: now };
      if (!this.addRoute(proxy, route, method, entry)) return slot;
    }
    slot.route = route;
    slot.method = method;
    slot.entry = entry;
    return slot;
  }

  /** A proxy's counts in the current hour, created if it has none yet. */
  private slot(proxyId: string): UsageSlot {
    let proxy = this.current.proxies.get(proxyId);
    if (proxy === undefined) {
      proxy = emptyProxy();
      this.current.proxies.set(proxyId, proxy);
    }
    return { hour: this.current, proxy, route: undefined, method: undefined, entry: undefined };
  }

  /** Nothing counted since the last `take`. */
  get empty(): boolean {
    return this.sealed.length === 0 && this.current.proxies.size === 0;
  }

  /** Everything counted so far, hour by hour; the counter goes on from zero. */
  take(): HourCount[] {
    const taken = this.current.proxies.size > 0 ? [...this.sealed, this.current] : this.sealed;
    this.sealed = [];
    this.current = { hour: this.current.hour, proxies: new Map() };
    this.routeEntries = 0;
    return taken;
  }

  /** Puts back what a failed write took, added to what was counted since (within the same bound). */
  restore(hours: readonly HourCount[]): void {
    for (const taken of hours) {
      let into = taken.hour === this.current.hour ? this.current : this.sealed.find((h) => h.hour === taken.hour);
      if (into === undefined) {
        into = { hour: taken.hour, proxies: new Map() };
        this.sealed.push(into);
      }
      for (const [proxyId, counted] of taken.proxies) {
        let proxy = into.proxies.get(proxyId);
        if (proxy === undefined) {
          proxy = emptyProxy();
          into.proxies.set(proxyId, proxy);
        }
        proxy.forwarded += counted.forwarded;
        proxy.refused += counted.refused;
        proxy.errors += counted.errors;
        for (const [route, methods] of counted.routes) {
          for (const [method, entry] of methods) {
            const known = proxy.routes.get(route)?.get(method);
            if (known === undefined) this.addRoute(proxy, route, method, { ...entry });
            else {
              known.count += entry.count;
              known.lastSeen = Math.max(known.lastSeen, entry.lastSeen);
            }
          }
        }
      }
    }
  }

  /** Adds the entry; false when the bound leaves it out (its count is dropped). */
  private addRoute(proxy: ProxyCount, route: string, method: string, entry: RouteCount): boolean {
    if (this.routeEntries >= MAX_ROUTE_ENTRIES) {
      this.droppedRoutes += entry.count;
      return false;
    }
    let methods = proxy.routes.get(route);
    if (methods === undefined) {
      methods = new Map();
      proxy.routes.set(route, methods);
    }
    methods.set(method, entry);
    this.routeEntries += 1;
    return true;
  }

  /** A new hour began: the one that ended waits for the next write. */
  private roll(now: number): void {
    if (this.current.proxies.size > 0) this.sealed.push(this.current);
    const hour = hourOf(now);
    this.current = { hour, proxies: new Map() };
    this.hourEnd = hour + HOUR_MS;
  }
}
