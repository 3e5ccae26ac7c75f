import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Logger } from '@nestjs/common';
import { lock } from 'proper-lockfile';

/** The lock directory inside `DATA_DIR` that the process using the embedded database holds. */
export const DATA_DIR_LOCK = 'pg.lock';
/** Who holds the lock, for the refusal message: written beside it, never trusted for the decision. */
const HOLDER_FILE = 'pg.lock.holder.json';
/** A lock whose holder stopped refreshing it for this long (killed, power cut) is taken over. */
const STALE_MS = 10_000;

/**
 * Another running Arrbiter holds this DATA_DIR's embedded database. Its message is the one start-up
 * line the operator reads: the embedded database is for one process; replicas share a PostgreSQL.
 */
export class EmbeddedDatabaseLockedError extends Error {
  constructor(directory: string, holder: string) {
    super(
      `The embedded database in ${directory} is in use by another running Arrbiter (${holder}): it serves one ` +
        'process only. Stop the other one, give this one a DATA_DIR of its own, or run several replicas on ' +
        'one PostgreSQL with DATABASE_URL.',
    );
    this.name = 'EmbeddedDatabaseLockedError';
  }
}

/** "pid N", plus the holder's host name when it is another host or container than this one. */
export function describeHolder(pid: number, host = hostname()): string {
  return host === hostname() ? `pid ${pid}` : `pid ${pid} on host ${host}`;
}

interface Holder {
  pid: number;
  host: string;
}

function holderOf(dataDir: string): Holder | undefined {
  try {
    const holder = JSON.parse(readFileSync(join(dataDir, HOLDER_FILE), 'utf8')) as Partial<Holder>;
    return typeof holder.pid === 'number' && typeof holder.host === 'string'
      ? { pid: holder.pid, host: holder.host }
      : undefined;
  } catch {
    return undefined;
  }
}

function describe(holder: Holder | undefined): string {
  return holder ? describeHolder(holder.pid, holder.host) : 'holder unknown';
}

/** The lock directories this process holds. */
const held = new Set<string>();

/**
 * This process, or another live process of this host (or container), holds it: no need to wait for
 * it to go stale. (A holder with this process's pid that this process does not hold is a previous
 * run of a restarted container.)
 */
function heldHere(lockPath: string, holder: Holder | undefined): boolean {
  if (held.has(lockPath)) return true;
  if (!holder || holder.host !== hostname() || holder.pid === process.pid) return false;
  try {
    process.kill(holder.pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Holds `DATA_DIR/pg.lock` while this process uses the embedded database. PostgreSQL's own
 * `postmaster.pid` check cannot see a server in another PID and IPC namespace (a second container on
 * the same volume, such as a one-off `reset-password`): that one would start a second server on the
 * same files and corrupt them. The lock is a directory whose modification time the holder refreshes
 * (proper-lockfile), which every process on the volume sees; a holder that was killed leaves a lock
 * that goes stale after 10 s and is then taken over.
 */
export class DataDirLock {
  private constructor(
    private readonly dataDir: string,
    private readonly lockPath: string,
    private readonly releaseLock: () => Promise<void>,
  ) {
    held.add(lockPath);
  }

  /**
   * Takes the lock, waiting up to the stale period for one a killed process left; refuses with
   * EmbeddedDatabaseLockedError while another process holds it. `onLost` runs if the lock cannot be
   * kept (its refresh failed or another process took it over): the caller must stop using the database.
   */
  static async acquire(
    dataDir: string,
    directory: string,
    onLost: (error: Error) => void,
    logger = new Logger('EmbeddedPostgres'),
  ): Promise<DataDirLock> {
    const options = {
      lockfilePath: join(dataDir, DATA_DIR_LOCK),
      realpath: false,
      stale: STALE_MS,
      onCompromised: onLost,
    };
    let release: () => Promise<void>;
    try {
      release = await lock(directory, { ...options, retries: 0 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error;
      // Held: by a live process, or by one killed less than 10 s ago. Wait out the stale period once,
      // unless the holder is a live process here.
      const holder = holderOf(dataDir);
      if (heldHere(options.lockfilePath, holder)) throw new EmbeddedDatabaseLockedError(directory, describe(holder));
      logger.log(`The embedded database's lock is held (${describe(holder)}): waiting up to 12 s for it`);
      try {
        release = await lock(directory, {
          ...options,
          retries: { retries: 12, factor: 1, minTimeout: 1_000, maxTimeout: 1_000 },
        });
      } catch (retryError) {
        if ((retryError as NodeJS.ErrnoException).code !== 'ELOCKED') throw retryError;
        throw new EmbeddedDatabaseLockedError(directory, describe(holderOf(dataDir)));
      }
    }
    // Replaced, not rewritten: an earlier holder may have been another user (root before PUID).
    rmSync(join(dataDir, HOLDER_FILE), { force: true });
    writeFileSync(
      join(dataDir, HOLDER_FILE),
      JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() }) + '\n',
    );
    return new DataDirLock(dataDir, options.lockfilePath, release);
  }

  /** Gives the lock up (once the server has stopped). */
  async release(): Promise<void> {
    if (!held.delete(this.lockPath)) return;
    rmSync(join(this.dataDir, HOLDER_FILE), { force: true });
    await this.releaseLock().catch(() => undefined);
  }
}
