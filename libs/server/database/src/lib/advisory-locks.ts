import type { DataSource } from 'typeorm';

/**
 * PostgreSQL advisory lock keys, one per kind of work that two replicas must not do at once. Every key
 * is declared here, so that no two kinds of work share one: `advisory-locks.spec.ts` checks that the
 * exported `*_LOCK` values are distinct.
 */
/** A template sync (scheduled or on request): one replica at a time. */
export const TEMPLATE_SYNC_LOCK = 726_118_201;
export const MIGRATION_LOCK = 726_118_202;
export const FIRST_ADMIN_LOCK = 726_118_203;
/** The periodic reachability check of the services: one replica at a time. */
export const SERVICE_CHECK_LOCK = 726_118_204;
/** Saving the notification webhooks: one save at a time, so that a save replaces the list it read. */
export const NOTIFICATION_SETTINGS_LOCK = 726_118_205;
/** The hourly purge of usage counters older than `USAGE_RETENTION_DAYS`: one replica at a time. */
export const USAGE_RETENTION_LOCK = 726_118_206;
/** A declarative import (API, command line or `CONFIG_FILE` at start-up): one at a time. */
export const CONFIG_IMPORT_LOCK = 726_118_207;
/** Held by every change of an account's role or existence, so that the last owner always stays. */
export const ADMIN_ROLES_LOCK = 726_118_208;
/** A flush of access warnings: one at a time, so that each counts the rows of a proxy the others wrote. */
export const WARNING_FLUSH_LOCK = 726_118_214;
/** The hourly purge of access warnings older than `WARNING_RETENTION_DAYS`: one replica at a time. */
export const WARNING_RETENTION_LOCK = 726_118_215;

/** Anything that runs SQL in the current transaction (a TypeORM `EntityManager` or query runner). */
export interface TransactionQueries {
  query(sql: string, parameters?: unknown[]): Promise<unknown>;
}

/**
 * Takes the transaction-scoped advisory lock `key` when no other transaction holds it (released at
 * commit or rollback); false when another replica's transaction has it.
 */
export async function tryTransactionLock(tx: TransactionQueries, key: number): Promise<boolean> {
  const [{ locked }] = (await tx.query('SELECT pg_try_advisory_xact_lock($1) AS locked', [key])) as {
    locked: boolean;
  }[];
  return locked;
}

/**
 * Runs `work` holding a session advisory lock on a connection of its own, when no other session
 * holds it; answers `{ ran: false }` at once otherwise (another replica is doing it). The lock goes
 * with the connection if the process dies.
 */
export async function withAdvisoryLock<T>(
  dataSource: DataSource,
  key: number,
  work: () => Promise<T>,
): Promise<{ ran: true; result: T } | { ran: false }> {
  const runner = dataSource.createQueryRunner();
  await runner.connect();
  try {
    const [{ locked }] = (await runner.query('SELECT pg_try_advisory_lock($1) AS locked', [key])) as {
      locked: boolean;
    }[];
    if (!locked) return { ran: false };
    try {
      return { ran: true, result: await work() };
    } finally {
      await runner.query('SELECT pg_advisory_unlock($1)', [key]);
    }
  } finally {
    await runner.release();
  }
}

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
