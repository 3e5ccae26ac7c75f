import { join } from 'node:path';
import { AppConfig } from '@arrbiter/server/config';
import { DataSourceOptions, EntitySchema, Logger, MixedList } from 'typeorm';
import { runMigrationsLocked } from './advisory-locks';
import { ArrbiterDataSource } from './arrbiter-data-source';
import { startEmbeddedDatabase } from './embedded-database';
import { EMBEDDED_DIRECTORY } from './embedded-postgres';
import { MIGRATIONS } from './migrations';

/** Time to wait for a pooled connection before failing. */
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
  return join(config.dataDir, EMBEDDED_DIRECTORY);
}

/**
 * Connects to PostgreSQL: `DATABASE_URL` when set, otherwise the embedded PostgreSQL under `DATA_DIR`
 * (started here, stopped when the DataSource is destroyed). One dialect, one migration set.
 */
export async function openDataSource(config: AppConfig, options: OpenDataSourceOptions): Promise<ArrbiterDataSource> {
  const embedded = config.databaseUrl === undefined ? await startEmbeddedDatabase(config.dataDir) : undefined;
  const base: DataSourceOptions = {
    type: 'postgres',
    ...(embedded ? embedded.connection : { url: config.databaseUrl }),
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
      max: 10,
      connectionTimeoutMillis: CONNECTION_TIMEOUT_MS,
      application_name: 'arrbiter',
    },
  };
  const dataSource = new ArrbiterDataSource(base, async () => {
    await embedded?.stop();
  });
  try {
    await dataSource.initialize();
    if (options.migrate) await runMigrationsLocked(dataSource);
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  return dataSource;
}
