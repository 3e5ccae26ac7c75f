import { cpSync, existsSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Logger } from '@nestjs/common';
import { Client } from 'pg';
import { DataSource, DataSourceOptions } from 'typeorm';
import {
  EMBEDDED_DIRECTORY,
  EMBEDDED_MARKER,
  EmbeddedConnection,
  EmbeddedPostgres,
  packageRequire,
} from './embedded-postgres';
import { MIGRATIONS } from './migrations';

/** The one command that makes an upgrade possible when PGlite is not installed. */
export const PGLITE_INSTALL_COMMAND =
  'npm install --no-save @electric-sql/pglite@0.5.14 @electric-sql/pglite-socket@0.2.17';
/** Where the upgrade works: a copy of PGlite's files, and the new server's directory until it is complete. */
const WORK_COPY = `${EMBEDDED_DIRECTORY}.pglite-work`;
const UPGRADED = `${EMBEDDED_DIRECTORY}.upgrade`;
/** Written into the new server's directory once every row is in it (and the server stopped). */
const UPGRADE_DONE = 'arrbiter-upgrade-done';
const BACKUP_PREFIX = `${EMBEDDED_DIRECTORY}.pglite-backup-`;
const BATCH_ROWS = 500;

/**
 * PGlite (file-backed) behind pglite-socket on a loopback port, on a worker thread: plain CommonJS,
 * packages resolved from this module's location. Loaded only here, for the upgrade.
 */
const WORKER_SOURCE = `
const { createRequire } = require('node:module');
const { parentPort, workerData } = require('node:worker_threads');
const load = createRequire(workerData.anchor);
const { PGlite } = load('@electric-sql/pglite');
const { pgcrypto } = load('@electric-sql/pglite/contrib/pgcrypto');
const { PGLiteSocketServer } = load('@electric-sql/pglite-socket');
(async () => {
  const db = await PGlite.create(workerData.directory, { extensions: { pgcrypto }, initialMemory: 128 * 1024 * 1024 });
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0 });
  try {
    await server.start();
  } catch (error) {
    await db.close();
    throw error;
  }
  parentPort.on('message', async () => {
    try {
      await server.stop();
      if (!db.closed) await db.close();
      parentPort.postMessage({ stopped: true });
    } catch (error) {
      parentPort.postMessage({ error: String(error && error.stack || error) });
    }
    parentPort.close();
  });
  parentPort.postMessage({ port: server.server.address().port });
})().catch((error) => parentPort.postMessage({ error: String(error && error.stack || error) }));
`;

type WorkerMessage = { port: number } | { stopped: true } | { error: string };

function nextMessage(worker: Worker): Promise<WorkerMessage> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: WorkerMessage) => {
      worker.off('error', onError);
      worker.off('exit', onExit);
      resolve(message);
    };
    const onError = (error: Error) => {
      worker.off('message', onMessage);
      worker.off('exit', onExit);
      reject(error);
    };
    const onExit = (code: number) => {
      worker.off('message', onMessage);
      worker.off('error', onError);
      reject(new Error(`PGlite's thread exited (${code})`));
    };
    worker.once('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
  });
}

/** A PGlite data directory opened read-write (on a copy: the original is never opened). */
class PgliteServer {
  private constructor(
    private readonly worker: Worker,
    readonly port: number,
  ) {}

  static async start(directory: string): Promise<PgliteServer> {
    const load = packageRequire();
    try {
      load.resolve('@electric-sql/pglite');
      load.resolve('@electric-sql/pglite-socket');
    } catch {
      throw new Error(
        `${EMBEDDED_DIRECTORY} in DATA_DIR holds a database written by an earlier Arrbiter (PGlite) and PGlite is not installed to move it into the embedded PostgreSQL: run \`${PGLITE_INSTALL_COMMAND}\` and start again (or set DATABASE_URL).`,
      );
    }
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { directory, anchor: join(__dirname, 'anchor.js') },
    });
    const started = await nextMessage(worker);
    if (!('port' in started)) {
      await worker.terminate();
      throw new Error(`PGlite did not open the earlier database: ${'error' in started ? started.error : 'no port'}`);
    }
    return new PgliteServer(worker, started.port);
  }

  async stop(): Promise<void> {
    const stopped = nextMessage(this.worker).catch((error: unknown) => ({ error: String(error) }));
    this.worker.postMessage('stop');
    await stopped;
    await this.worker.terminate();
  }
}

function timestamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-');
}

/** Whether `directory` holds PGlite's files: a data directory that this server did not initialise. */
export function isPgliteDirectory(directory: string): boolean {
  return existsSync(join(directory, 'PG_VERSION')) && !existsSync(join(directory, EMBEDDED_MARKER));
}

/**
 * Finishes an upgrade that was interrupted after every row was copied (the new directory is complete):
 * the PGlite directory becomes the backup, the new one takes its place. An upgrade interrupted earlier
 * left the PGlite directory untouched: what it wrote is removed and the next start does it again.
 */
export function finishInterruptedUpgrade(dataDir: string, logger: Logger): void {
  const current = join(dataDir, EMBEDDED_DIRECTORY);
  const upgraded = join(dataDir, UPGRADED);
  rmSync(join(dataDir, WORK_COPY), { recursive: true, force: true });
  if (!existsSync(upgraded)) return;
  if (!existsSync(join(upgraded, UPGRADE_DONE))) {
    rmSync(upgraded, { recursive: true, force: true });
    return;
  }
  if (existsSync(current)) {
    if (!isPgliteDirectory(current)) {
      throw new Error(`Both ${current} and a completed upgrade in ${upgraded} exist: keep one of them and start again`);
    }
    const backup = join(dataDir, `${BACKUP_PREFIX}${timestamp()}`);
    renameSync(current, backup);
    logger.log(`The earlier database (PGlite) is kept in ${backup}`);
  }
  renameSync(upgraded, current);
  rmSync(join(current, UPGRADE_DONE), { force: true });
}

function dataSourceOptions(connection: EmbeddedConnection | { host: string; port: number }): DataSourceOptions {
  return {
    type: 'postgres',
    username: 'postgres',
    database: 'postgres',
    ...connection,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
    installExtensions: false,
    // PGlite's socket serves one session: one connection, kept.
    extra: { max: 1, idleTimeoutMillis: 0 },
  };
}

interface TableInfo {
  name: string;
  columns: string[];
}

/** The application's tables in foreign-key order (referenced before referencing), their copyable columns. */
async function tablesInOrder(target: Client): Promise<TableInfo[]> {
  const { rows: tables } = await target.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p') AND c.relname <> 'migrations' ORDER BY c.relname`,
  );
  const { rows: references } = await target.query<{ child: string; parent: string }>(
    `SELECT c.relname AS child, p.relname AS parent FROM pg_constraint k
     JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
     JOIN pg_namespace n ON n.oid = c.relnamespace
     WHERE k.contype = 'f' AND n.nspname = 'public' AND c.oid <> p.oid`,
  );
  const order: string[] = [];
  const visiting = new Set<string>();
  const visit = (name: string) => {
    if (order.includes(name) || visiting.has(name)) return;
    visiting.add(name);
    for (const reference of references) if (reference.child === name) visit(reference.parent);
    order.push(name);
  };
  for (const table of tables) visit(table.name);
  const result: TableInfo[] = [];
  for (const name of order) {
    const { rows } = await target.query<{ name: string }>(
      `SELECT attname AS name FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped
       AND attgenerated = '' ORDER BY attnum`,
      [`public."${name}"`],
    );
    result.push({ name, columns: rows.map((row) => row.name) });
  }
  return result;
}

const quote = (name: string) => `"${name.replace(/"/g, '""')}"`;

/**
 * Copies every row of the application's tables from `source` to `target` (both at the same migration
 * level) in one transaction on the target, in foreign-key order, then the sequences; the counts are
 * checked before it commits.
 */
async function copyRows(source: Client, target: Client, logger: Logger): Promise<void> {
  const tables = await tablesInOrder(target);
  await source.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
  await target.query('BEGIN');
  try {
    // Rows are copied as they are: no trigger or foreign-key check fires on the copy.
    await target.query('SET LOCAL session_replication_role = replica');
    if (tables.length > 0) await target.query(`TRUNCATE ${tables.map((t) => quote(t.name)).join(', ')}`);
    for (const table of tables) {
      const columns = table.columns.map(quote).join(', ');
      await source.query(
        `DECLARE rows_cursor NO SCROLL CURSOR FOR SELECT row_to_json(t)::text AS row FROM ${quote(table.name)} t`,
      );
      let copied = 0;
      for (;;) {
        const { rows } = await source.query<{ row: string }>(`FETCH ${BATCH_ROWS} FROM rows_cursor`);
        if (rows.length === 0) break;
        await target.query(
          `INSERT INTO ${quote(table.name)} (${columns}) OVERRIDING SYSTEM VALUE
           SELECT ${columns} FROM json_populate_recordset(null::${quote(table.name)}, $1::json)`,
          [`[${rows.map((row) => row.row).join(',')}]`],
        );
        copied += rows.length;
      }
      await source.query('CLOSE rows_cursor');
      const { rows: counted } = await target.query<{ count: string }>(`SELECT count(*) FROM ${quote(table.name)}`);
      if (Number(counted[0].count) !== copied) {
        throw new Error(`Copying ${table.name}: ${copied} rows read, ${counted[0].count} in the new database`);
      }
      logger.log(`Moved ${copied} rows of ${table.name}`);
    }
    const { rows: sequences } = await source.query<{ name: string; value: string | null }>(
      `SELECT quote_ident(schemaname) || '.' || quote_ident(sequencename) AS name, last_value::text AS value
       FROM pg_sequences WHERE schemaname = 'public'`,
    );
    for (const sequence of sequences) {
      if (sequence.value !== null)
        await target.query('SELECT setval($1::regclass, $2::bigint, true)', [sequence.name, sequence.value]);
    }
    await target.query('COMMIT');
  } catch (error) {
    await target.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await source.query('ROLLBACK').catch(() => undefined);
  }
}

async function migrated(options: DataSourceOptions): Promise<void> {
  const dataSource = new DataSource(options);
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await dataSource.destroy();
  }
}

/**
 * Moves a PGlite data directory (`DATA_DIR/pg` of earlier versions) into a new embedded PostgreSQL:
 * PGlite opens a copy of it, both are brought to the current migration level, every row is copied,
 * then the PGlite directory is renamed to `pg.pglite-backup-<time>` (never deleted) and the new one
 * takes its place. Until that last step the PGlite directory is untouched: an interrupted upgrade is
 * done again at the next start.
 */
export async function upgradeFromPglite(dataDir: string, logger: Logger): Promise<void> {
  const current = join(dataDir, EMBEDDED_DIRECTORY);
  const work = join(dataDir, WORK_COPY);
  const upgraded = join(dataDir, UPGRADED);
  logger.warn(
    `${current} holds a database written by an earlier Arrbiter (PGlite): moving it into the embedded PostgreSQL`,
  );
  for (const leftover of [work, upgraded]) rmSync(leftover, { recursive: true, force: true });
  cpSync(current, work, { recursive: true });
  const pglite = await PgliteServer.start(work);
  let server: EmbeddedPostgres | undefined;
  try {
    await EmbeddedPostgres.initialise(dataDir, upgraded, logger);
    server = await EmbeddedPostgres.start(dataDir, upgraded, logger);
    const sourceConnection = { host: '127.0.0.1', port: pglite.port };
    await migrated(dataSourceOptions(sourceConnection));
    await migrated(dataSourceOptions(server.connection));
    const source = new Client({ ...sourceConnection, user: 'postgres', database: 'postgres' });
    const target = new Client({ ...server.connection, user: server.connection.username });
    await source.connect();
    try {
      await target.connect();
      try {
        await copyRows(source, target, logger);
      } finally {
        await target.end();
      }
    } finally {
      await source.end();
    }
  } finally {
    await server?.stop();
    await pglite.stop();
    rmSync(work, { recursive: true, force: true });
  }
  writeFileSync(join(upgraded, UPGRADE_DONE), '');
  finishInterruptedUpgrade(dataDir, logger);
  logger.log('The earlier database (PGlite) is now in the embedded PostgreSQL');
}

/** The backups left by upgrades, newest last. */
export function pgliteBackups(dataDir: string): string[] {
  return readdirSync(dataDir)
    .filter((name) => name.startsWith(BACKUP_PREFIX))
    .sort();
}
