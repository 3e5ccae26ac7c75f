import type { DataSource } from 'typeorm';

/**
 * PostgreSQL advisory lock keys, one per kind of work that two replicas must not do at once (the
 * template sync's is `TEMPLATE_SYNC_LOCK` in the template-sync lib, 726_118_201; the usage purge's
 * `USAGE_RETENTION_LOCK` in the usage lib, 726_118_210).
 */
export const MIGRATION_LOCK = 726_118_202;
export const FIRST_ADMIN_LOCK = 726_118_203;

/**
 * Applies pending migrations holding `MIGRATION_LOCK` (a session lock on a connection of its own), so
 * that replicas starting together migrate one after the other: the second finds nothing to do.
 */
export async function runMigrationsLocked(dataSource: DataSource): Promise<{ name: string }[]> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    await runner.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      return await dataSource.runMigrations({ transaction: 'each' });
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await runner.release();
  }
}
