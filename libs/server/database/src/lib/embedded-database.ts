import { existsSync, readdirSync, rmdirSync } from 'node:fs';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { EMBEDDED_DIRECTORY, EMBEDDED_MARKER, EmbeddedPostgres } from './embedded-postgres';
import { finishInterruptedUpgrade, isPgliteDirectory, upgradeFromPglite } from './pglite-upgrade';

/**
 * The embedded PostgreSQL of `DATA_DIR`, started: initialised on the first start, moved from PGlite
 * when `DATA_DIR/pg` was written by an earlier version (never initialised over), then started.
 */
export async function startEmbeddedDatabase(dataDir: string): Promise<EmbeddedPostgres> {
  const logger = new Logger(EmbeddedPostgres.name);
  const directory = join(dataDir, EMBEDDED_DIRECTORY);
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
  return EmbeddedPostgres.start(dataDir, directory, logger);
}
