import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig, Clock } from '@arrbiter/server/config';
import { DatabaseLifecycle, PeriodicJob, tryTransactionLock, WARNING_RETENTION_LOCK } from '@arrbiter/server/database';

const DAY_MS = 24 * 3_600_000;
/** How often warnings older than `WARNING_RETENTION_DAYS` are deleted; the first time a minute after start. */
export const WARNING_PURGE_INTERVAL_MS = 3_600_000;
const FIRST_PURGE_MS = 60_000;

/**
 * Deletes access warnings last seen more than `WARNING_RETENTION_DAYS` ago, every hour, as
 * `UsageRetention` does for usage counters. Replicas sharing a database take turns: the purge runs in
 * a transaction holding `pg_try_advisory_xact_lock`, and a replica that does not get the lock leaves
 * the work to the one that has it.
 */
@Injectable()
export class WarningRetention implements OnApplicationBootstrap {
  private readonly job: PeriodicJob;

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    lifecycle: DatabaseLifecycle,
  ) {
    this.job = new PeriodicJob(lifecycle, {
      what: 'delete old access warnings',
      firstMs: FIRST_PURGE_MS,
      intervalMs: WARNING_PURGE_INTERVAL_MS,
      logger: new Logger(WarningRetention.name),
      run: async () => {
        const deleted = await this.purge();
        return deleted ? `Deleted ${deleted} access warnings past retention` : undefined;
      },
    });
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  /**
   * Deletes the warnings last seen more than `WARNING_RETENTION_DAYS` before `now` (the clock's by
   * default). Returns how many, or null when another replica was purging.
   */
  async purge(now = this.clock.now()): Promise<number | null> {
    const cutoff = new Date(now - this.config.warningRetentionDays * DAY_MS);
    return this.txHost.withTransaction(async () => {
      if (!(await tryTransactionLock(this.txHost.tx, WARNING_RETENTION_LOCK))) return null;
      const [{ n }] = (await this.txHost.tx.query(
        `WITH deleted AS (DELETE FROM access_warning WHERE last_seen < $1 RETURNING 1) SELECT count(*)::int AS n FROM deleted`,
        [cutoff],
      )) as { n: number }[];
      return n;
    });
  }
}
