import type { Clock } from '@arrbiter/server/config';
import { hourOf } from './usage-counter';

/** The longest User-Agent kept (the rest is cut). */
export const MAX_USER_AGENT_LENGTH = 200;
/** The longest address kept (an IPv6 address with a zone fits). */
export const MAX_ADDRESS_LENGTH = 64;
/** Distinct (app, hour) entries held between two writes at most; beyond, calls count in the hour's unknown-app row. */
export const MAX_UNAUTHORIZED_ENTRIES = 1_000;

/** 401s of one app (or of slugs no app has: `appId` null) within one hour. */
export interface UnauthorizedCount {
  /** The hour's start, epoch milliseconds. */
  hour: number;
  appId: string | null;
  count: number;
  /** Epoch milliseconds of the last call. */
  lastSeen: number;
  lastAddress: string | null;
  lastUserAgent: string | null;
}

/** The key of an entry: the unknown app's is '' (no app id is empty). */
function keyOf(hour: number, appId: string | null): string {
  return `${hour} ${appId ?? ''}`;
}

/**
 * Calls of the proxy route refused with 401 (a wrong, inactive or missing key), in memory: per app
 * (or `null`, slugs no app has) and hour, the count and the last call's time, address and User-Agent
 * (cut to `MAX_USER_AGENT_LENGTH`). Never any part of a key: the slug of an unknown app is not kept
 * either (a key pasted where the slug goes would be one). Fed only on the 401 path (`ProxyKeyGuard`), so
 * a call let through never pays for it; `UsageRecorder` takes what was counted and writes it behind.
 * Bounded: at most `MAX_UNAUTHORIZED_ENTRIES` entries between two writes, the calls beyond count in
 * their hour's unknown-app row (`folded`).
 */
export class UnauthorizedCounter {
  private entries = new Map<string, UnauthorizedCount>();
  /** Calls counted in the unknown-app row because of the bound, since start. */
  folded = 0;

  constructor(private readonly clock: Pick<Clock, 'now'>) {}

  /** One 401 on the proxy route: the app its slug names (null: none), the caller's address and User-Agent. */
  count(appId: string | null, address: string | undefined, userAgent: string | string[] | undefined): void {
    const now = this.clock.now();
    const hour = hourOf(now);
    let entry = this.entries.get(keyOf(hour, appId));
    if (entry === undefined) {
      if (appId !== null && this.entries.size >= MAX_UNAUTHORIZED_ENTRIES) {
        this.folded += 1;
        appId = null;
        entry = this.entries.get(keyOf(hour, null));
      }
      if (entry === undefined) {
        entry = { hour, appId, count: 0, lastSeen: now, lastAddress: null, lastUserAgent: null };
        this.entries.set(keyOf(hour, appId), entry);
      }
    }
    entry.count += 1;
    entry.lastSeen = now;
    entry.lastAddress = address ? address.slice(0, MAX_ADDRESS_LENGTH) : null;
    const agent = Array.isArray(userAgent) ? userAgent[0] : userAgent;
    entry.lastUserAgent = agent ? agent.slice(0, MAX_USER_AGENT_LENGTH) : null;
  }

  /** Nothing counted since the last `take`. */
  get empty(): boolean {
    return this.entries.size === 0;
  }

  /** Everything counted so far; the counter goes on from zero. */
  take(): UnauthorizedCount[] {
    const taken = [...this.entries.values()];
    this.entries = new Map();
    return taken;
  }

  /** Puts back what a failed write took, added to what was counted since (within the same bound). */
  restore(taken: readonly UnauthorizedCount[]): void {
    for (const counted of taken) {
      let appId = counted.appId;
      let entry = this.entries.get(keyOf(counted.hour, appId));
      if (entry === undefined && appId !== null && this.entries.size >= MAX_UNAUTHORIZED_ENTRIES) {
        this.folded += counted.count;
        appId = null;
        entry = this.entries.get(keyOf(counted.hour, null));
      }
      if (entry === undefined) {
        this.entries.set(keyOf(counted.hour, appId), { ...counted, appId });
        continue;
      }
      entry.count += counted.count;
      if (counted.lastSeen > entry.lastSeen) {
        entry.lastSeen = counted.lastSeen;
        entry.lastAddress = counted.lastAddress;
        entry.lastUserAgent = counted.lastUserAgent;
      }
    }
  }
}
