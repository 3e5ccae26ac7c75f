import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig, Clock } from '@arrbiter/server/config';
import { DatabaseLifecycle, PeriodicJob, tryTransactionLock, USAGE_RETENTION_LOCK } from '@arrbiter/server/database';
import { HOUR_MS, hourOf } from './usage-counter';

/** How often counters older than `USAGE_RETENTION_DAYS` are deleted; the first time a minute after start. */
export const USAGE_PURGE_INTERVAL_MS = HOUR_MS;
const FIRST_PURGE_MS = 60_000;

/**
 * Deletes usage counters older than `USAGE_RETENTION_DAYS` (default 90), every hour. Replicas sharing a
 * database take turns: the purge runs in a transaction holding `pg_try_advisory_xact_lock`, and a
 * replica that does not get the lock leaves the work to the one that has it.
 */
@Injectable()
export class UsageRetention implements OnApplicationBootstrap {
  private readonly job: PeriodicJob;

  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    lifecycle: DatabaseLifecycle,
  ) {
    this.job = new PeriodicJob(lifecycle, {
      what: 'delete old usage counters',
      firstMs: FIRST_PURGE_MS,
      intervalMs: USAGE_PURGE_INTERVAL_MS,
      logger: new Logger(UsageRetention.name),
      run: async () => {
        const deleted = await this.purge();
        if (deleted && deleted.hours + deleted.routes + deleted.unauthorized > 0)
          return `Deleted ${deleted.hours} hourly usage rows, ${deleted.routes} route rows and ${deleted.unauthorized} rows of 401s past retention`;
        return undefined;
      },
    });
  }

  onApplicationBootstrap(): void {
    this.job.start();
  }

  /**
   * Deletes the hours that began more than `USAGE_RETENTION_DAYS` before the current hour. Returns the
   * rows deleted, or null when another replica was purging.
   */
  async purge(): Promise<{ hours: number; routes: number; unauthorized: number } | null> {
    const cutoff = new Date(hourOf(this.clock.now()) - this.config.usageRetentionDays * 24 * HOUR_MS);
    return this.txHost.withTransaction(async () => {
      if (!(await tryTransactionLock(this.txHost.tx, USAGE_RETENTION_LOCK))) return null;
      const routes = await this.deleteBefore('usage_route', cutoff);
      const hours = await this.deleteBefore('usage_hour', cutoff);
      const unauthorized = await this.deleteBefore('unauthorized_usage', cutoff);
      return { hours, routes, unauthorized };
    });
  }

  private async deleteBefore(
    table: 'usage_hour' | 'usage_route' | 'unauthorized_usage',
    cutoff: Date,
  ): Promise<number> {
    const [{ n }] = (await this.txHost.tx.query(
      `WITH deleted AS (DELETE FROM ${table} WHERE hour < $1 RETURNING 1) SELECT count(*)::int AS n FROM deleted`,
      [cutoff],
    )) as { n: number }[];
    return n;
  }
}
