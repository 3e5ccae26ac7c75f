import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { Clock } from '@arrbiter/server/config';
import { DatabaseLifecycle } from '@arrbiter/server/database';
import { Repository } from 'typeorm';
import { ProxyEntity } from './entities/proxy.entity';

interface Pending {
  proxyId: string;
  /** The previous key's digest: counts reach only that key, never one a later rotation replaced. */
  digest: string;
  uses: number;
  /** Epoch milliseconds. */
  lastUsed: number;
}

/** Proxies whose counts are held in memory at most (one entry per proxy in a grace period). */
export const MAX_PENDING_USES = 10_000;
const FLUSH_INTERVAL_MS = 1_000;
const BATCH = 500;

/** Adds the counts to the rows, so that replicas add up; a key ended or replaced meanwhile matches nothing. */
const ADD_USES = `
UPDATE proxy AS p SET
  previous_key_uses = p.previous_key_uses + u.uses,
  previous_key_last_used_at = GREATEST(p.previous_key_last_used_at, u.last_used)
FROM unnest($1::uuid[], $2::char(64)[], $3::bigint[], $4::timestamptz[]) AS u(id, digest, uses, last_used)
WHERE p.id = u.id AND p.previous_key_digest = u.digest`;

/**
 * Counts the calls made with a proxy's previous key (a key rotated with a grace period), so that the
 * dashboard shows whether the client has switched. `record` runs on the proxy route, only for such
 * calls, and only adds to a number in memory; a write-behind flush adds the counts to the rows every
 * second. Never delays or fails a call: a failed write keeps its counts for the next flush.
 */
@Injectable()
export class PreviousKeyUsage {
  private readonly logger = new Logger(PreviousKeyUsage.name);
  private pending = new Map<string, Pending>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private closed = false;

  constructor(
    @InjectRepository(ProxyEntity) private readonly proxies: Repository<ProxyEntity>,
    private readonly clock: Clock,
    lifecycle: DatabaseLifecycle,
  ) {
    // The last counts are written after the last request, before the database closes.
    lifecycle.beforeClose(async () => {
      this.closed = true;
      clearTimeout(this.timer);
      this.timer = undefined;
      await this.flush();
      if (this.pending.size > 0) await this.flush();
    });
  }

  /** One call made with `digest`, the previous key of proxy `proxyId`. */
  record(proxyId: string, digest: string): void {
    const now = this.clock.now();
    const known = this.pending.get(proxyId);
    if (known?.digest === digest) {
      known.uses += 1;
      known.lastUsed = now;
    } else if (known || this.pending.size < MAX_PENDING_USES) {
      // A new rotation replaced the key counted so far: those counts belong to a key that no longer exists.
      this.pending.set(proxyId, { proxyId, digest, uses: 1, lastUsed: now });
    }
    this.schedule();
  }

  /** Writes what is pending; concurrent calls share one write. Never throws. */
  flush(): Promise<void> {
    this.flushing ??= this.write().finally(() => {
      this.flushing = undefined;
      if (this.pending.size > 0) this.schedule();
    });
    return this.flushing;
  }

  /** At most one timer; cleared when it fires. */
  private schedule(): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  private async write(): Promise<void> {
    const items = [...this.pending.values()];
    this.pending = new Map();
    for (let i = 0; i < items.length; i += BATCH) {
      const chunk = items.slice(i, i + BATCH);
      try {
        await this.proxies.query(ADD_USES, [
          chunk.map((item) => item.proxyId),
          chunk.map((item) => item.digest),
          chunk.map((item) => item.uses),
          chunk.map((item) => new Date(item.lastUsed)),
        ]);
      } catch (error) {
        this.logger.warn(`Could not write the use of previous keys: ${(error as Error).message}`);
        for (const item of items.slice(i)) this.requeue(item);
        break;
      }
    }
  }

  /** Puts counts back after a failed write, merged with newer ones of the same key. */
  private requeue(item: Pending): void {
    const newer = this.pending.get(item.proxyId);
    if (!newer) {
      if (this.pending.size < MAX_PENDING_USES) this.pending.set(item.proxyId, item);
    } else if (newer.digest === item.digest) newer.uses += item.uses;
  }
}
