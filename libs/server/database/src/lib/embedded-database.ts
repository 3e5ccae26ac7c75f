import { existsSync, mkdirSync, readdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { DataDirLock } from './data-dir-lock';
import { EMBEDDED_DIRECTORY, EMBEDDED_MARKER, EmbeddedPostgres } from './embedded-postgres';
import { finishInterruptedUpgrade, isPgliteDirectory, upgradeFromPglite } from './pglite-upgrade';

/**
 * The embedded PostgreSQL of `DATA_DIR`, started: initialised on the first start, moved from PGlite
 * when `DATA_DIR/pg` was written by an earlier version (never initialised over), then started. The
 * whole of it runs under DATA_DIR's lock (DataDirLock), which the server keeps until it stops: a
 * second process on the same directory, in this container or another one, is refused.
 */
export async function startEmbeddedDatabase(dataDir: string): Promise<EmbeddedPostgres> {
  const logger = new Logger(EmbeddedPostgres.name);
  const directory = join(dataDir, EMBEDDED_DIRECTORY);
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  let server: EmbeddedPostgres | undefined;
  const lock = await DataDirLock.acquire(
    dataDir,
    directory,
    (error) => {
      // Another process may now start a server on these files: stop using them at once.
      logger.error(`Lost the lock on the embedded database in ${directory} (${error.message}): shutting down`);
      process.kill(process.pid, 'SIGTERM');
    },
    logger,
  );
  try {
    if (existsSync(dataDir)) finishInterruptedUpgrade(dataDir, logger);
    if (existsSync(directory) && !existsSync(join(directory, EMBEDDED_MARKER))) {
      if (isPgliteDirectory(directory)) {
        await upgradeFromPglite(dataDir, logger);
      } else if (readdirSync(directory).length === 0) {
        rmdirSync(directory);
      } else {
        throw new Error(
          `${directory} holds files that are not a database of this server: move them away, or set DATABASE_URL`,
        );
      }
    }
    if (!existsSync(directory)) await EmbeddedPostgres.initialise(dataDir, directory, logger);
    server = await EmbeddedPostgres.start(dataDir, directory, logger);
    server.holdUntilStopped(lock);
    return server;
  } finally {
    if (!server) await lock.release();
  }
}
