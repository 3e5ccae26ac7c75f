import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig, Clock } from '@arrbiter/server/config';
import { DatabaseLifecycle, WARNING_RETENTION_LOCK } from '@arrbiter/server/database';

const DAY_MS = 24 * 3_600_000;
/** How often warnings older than `WARNING_RETENTION_DAYS` are deleted; the first time a minute after start. */
export const WARNING_PURGE_INTERVAL_MS = 3_600_000;
const FIRST_PURGE_MS = 60_000;

/**
 * Deletes access warnings last seen more than `WARNING_RETENTION_DAYS` ago (issue 34), every hour, as
 * `UsageRetention` does for usage counters. Replicas sharing a database take turns: the purge runs in
 * a transaction holding `pg_try_advisory_xact_lock`, and a replica that does not get the lock leaves
 * the work to the one that has it.
 */
@Injectable()
export class WarningRetention implements OnApplicationBootstrap {
  private readonly logger = new Logger(WarningRetention.name);
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> | undefined;
  private stopped = false;

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    lifecycle: DatabaseLifecycle,
  ) {
    lifecycle.beforeClose(async () => {
      this.stopped = true;
      clearTimeout(this.timer);
      await this.running;
    });
  }

  onApplicationBootstrap(): void {
    this.plan(FIRST_PURGE_MS);
  }

  /**
   * Deletes the warnings last seen more than `WARNING_RETENTION_DAYS` before `now` (the clock's by
   * default). Returns how many, or null when another replica was purging.
   */
  async purge(now = this.clock.now()): Promise<number | null> {
    const cutoff = new Date(now - this.config.warningRetentionDays * DAY_MS);
    return this.txHost.withTransaction(async () => {
      const [{ locked }] = (await this.txHost.tx.query('SELECT pg_try_advisory_xact_lock($1) AS locked', [
        WARNING_RETENTION_LOCK,
      ])) as { locked: boolean }[];
      if (!locked) return null;
      const [{ n }] = (await this.txHost.tx.query(
        `WITH deleted AS (DELETE FROM access_warning WHERE last_seen < $1 RETURNING 1) SELECT count(*)::int AS n FROM deleted`,
        [cutoff],
      )) as { n: number }[];
      return n;
    });
  }

  private plan(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.purge()
        .then((deleted) => {
          if (deleted) this.logger.log(`Deleted ${deleted} access warnings past retention`);
        })
        .catch((error: unknown) =>
          this.logger.warn(`Could not delete old access warnings: ${(error as Error).message}`),
        )
        .finally(() => {
          this.running = undefined;
          this.plan(WARNING_PURGE_INTERVAL_MS);
        });
    }, delayMs);
    this.timer.unref();
  }
}
