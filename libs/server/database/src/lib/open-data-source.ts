import { join } from 'node:path';
import { AppConfig } from '@arrbiter/server/config';
import { DataSourceOptions, EntitySchema, Logger, MixedList } from 'typeorm';
import { ArrbiterDataSource } from './arrbiter-data-source';
import { EmbeddedPostgres } from './embedded-postgres';
import { MIGRATIONS } from './migrations';

/** Time to wait for a pooled connection before failing (turns a pool-of-one deadlock into an error). */
const CONNECTION_TIMEOUT_MS = 10_000;

export interface OpenDataSourceOptions {
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function | string | EntitySchema>;
  /** Run pending migrations once connected (the server and the `migrate` command do; tests may not). */
  migrate?: boolean;
  logger?: Logger;
}

/** The embedded database's directory inside `DATA_DIR`. */
export function embeddedDirectory(config: AppConfig): string {
  return join(config.dataDir, 'pg');
}

/**
 * Connects to PostgreSQL: `DATABASE_URL` when set, otherwise the embedded PGlite under `DATA_DIR`
 * (started here, stopped when the DataSource is destroyed). One dialect, one migration set.
 */
export async function openDataSource(config: AppConfig, options: OpenDataSourceOptions): Promise<ArrbiterDataSource> {
  const embedded =
    config.databaseUrl === undefined ? await EmbeddedPostgres.start(embeddedDirectory(config)) : undefined;
  const base: DataSourceOptions = {
    type: 'postgres',
    url: embedded?.url ?? config.databaseUrl,
    entities: options.entities,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
    migrationsRun: false,
    // gen_random_uuid() is built into PostgreSQL 13+; nothing needs installing.
    uuidExtension: 'pgcrypto',
    installExtensions: false,
    logger: options.logger,
    logging: options.logger ? ['error', 'warn', 'query'] : false,
    extra: {
      // The embedded server has one backend session: every user in the process shares one connection.
      max: embedded ? 1 : 10,
      // The one embedded connection is kept for the life of the process: closing it when idle (pg's
      // default after 10 s) races with the next query for the socket server's single session.
      ...(embedded ? { idleTimeoutMillis: 0 } : {}),
      connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
      application_name: 'arrbiter',
    },
  };
  const dataSource = new ArrbiterDataSource(base, async () => {
    await embedded?.stop();
  });
  try {
    await dataSource.initialize();
    if (options.migrate) await dataSource.runMigrations({ transaction: 'each' });
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return dataSource;
}
