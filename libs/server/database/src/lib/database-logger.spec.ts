import { Logger } from '@nestjs/common';
import { DataSource, QueryRunner } from 'typeorm';
import { DatabaseLogger } from './database-logger';

const SECRET = 'sk_live_0123456789abcdef';

/** What the `pg` client answers: rows, or a PostgreSQL error. */
type Answer = { rows: unknown[] } | { error: Error };

/**
 * TypeORM's own PostgreSQL query runner, logging to the logger under test, over a fake `pg` connection:
 * the logger sees exactly the calls TypeORM makes around a query, and no database is needed.
 */
function queryRunnerWith(logger: DatabaseLogger, answer: () => Answer, maxQueryExecutionTime?: number): QueryRunner {
  const dataSource = new DataSource({
    type: 'postgres',
    logger,
    logging: ['error', 'warn', 'query'],
    maxQueryExecutionTime,
  });
  const runner = dataSource.createQueryRunner();
  const connection = {
    query: async () => {
      const result = answer();
      if ('error' in result) throw result.error;
      return { rows: result.rows, rowCount: result.rows.length, command: 'SELECT' };
    },
  };
  Object.assign(runner, { databaseConnection: connection });
  return runner;
}

/** A unique violation as `pg` reports it: the duplicate value is in `detail`, not in the message. */
function uniqueViolation(): Error {
  return Object.assign(new Error('duplicate key value violates unique constraint "UQ_d452ff733874f6f35e6078a34d4"'), {
    code: '23505',
    detail: `Key (key_digest)=(${SECRET}) already exists.`,
  });
}

describe(DatabaseLogger.name, () => {
  let warn: jest.SpyInstance;
  let log: jest.SpyInstance;

  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  /** Everything the logger wrote, as one string. */
  const written = () => JSON.stringify([...warn.mock.calls, ...log.mock.calls]);

  it('counts a successful query once and logs nothing about it', async () => {
    const logger = new DatabaseLogger();
    const runner = queryRunnerWith(logger, () => ({ rows: [{ ok: 1 }] }));

    await runner.query('SELECT $1::text AS key', [SECRET]);
    await runner.query('SELECT 1');

    expect(logger.queryCount).toBe(2);
    expect(warn).not.toHaveBeenCalled();
    expect(log).not.toHaveBeenCalled();
  });

  it('counts a failed query once, and reports its SQL and error message without its parameters', async () => {
    const logger = new DatabaseLogger();
    const runner = queryRunnerWith(logger, () => ({ error: uniqueViolation() }));

    await expect(runner.query('INSERT INTO "proxy" ("key_digest") VALUES ($1)', [SECRET])).rejects.toThrow(
      'duplicate key value',
    );

    expect(logger.queryCount).toBe(1);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn).toHaveBeenCalledWith(
      {
        query: 'INSERT INTO "proxy" ("key_digest") VALUES ($1)',
        error: 'duplicate key value violates unique constraint "UQ_d452ff733874f6f35e6078a34d4"',
      },
      'query failed',
    );
    expect(written()).not.toContain(SECRET);
  });

  it('reports a slow query with its duration, without its parameters', async () => {
    jest.useFakeTimers({ now: new Date('2030-01-01T00:00:00Z') });
    const logger = new DatabaseLogger();
    const runner = queryRunnerWith(
      logger,
      () => {
        jest.setSystemTime(Date.now() + 5_000); // the query "takes" five seconds
        return { rows: [] };
      },
      1_000,
    );

    await runner.query('SELECT * FROM "admin_session" WHERE "id" = $1', [SECRET]);

    expect(logger.queryCount).toBe(1);
    expect(warn).toHaveBeenCalledWith(
      { query: 'SELECT * FROM "admin_session" WHERE "id" = $1', durationMs: 5_000 },
      'slow query',
    );
    expect(written()).not.toContain(SECRET);
  });

  it('cuts a long query to its first 500 characters', async () => {
    const logger = new DatabaseLogger();
    const long = `SELECT '${'x'.repeat(1_000)}'`;
    const runner = queryRunnerWith(logger, () => ({ error: new Error('boom') }));

    await expect(runner.query(long)).rejects.toThrow('boom');

    expect(warn).toHaveBeenCalledWith({ query: long.slice(0, 500), error: 'boom' }, 'query failed');
  });

  it("passes on TypeORM's warnings and migration messages, not its informational ones", () => {
    const logger = new DatabaseLogger();

    logger.log('info', 'connected');
    logger.log('log', 'something');
    logger.log('warn', 'pool is full');
    logger.logMigration('Migration Initial1795265866730 has been executed successfully.');

    expect(warn.mock.calls).toEqual([['pool is full']]);
    expect(log.mock.calls).toEqual([['Migration Initial1795265866730 has been executed successfully.']]);
    expect(logger.queryCount).toBe(0);
  });
});
