import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LoggerService } from '@nestjs/common';
import { Client } from 'pg';
import { startEmbeddedDatabase } from './embedded-database';
import {
  EMBEDDED_PASSWORD_FILE,
  EmbeddedDatabaseLockedError,
  EmbeddedDatabaseUnavailableError,
  EmbeddedPostgres,
  embeddedBinaries,
} from './embedded-postgres';

const ROOT = join(__dirname, '../../../../..');
const CHILD = join(__dirname, '../testing/embedded-child.ts');

/** A logger that keeps every line with its level. */
function recordingLogger(): LoggerService & { lines: { level: string; message: string }[] } {
  const lines: { level: string; message: string }[] = [];
  const record = (level: string) => (message: unknown) => lines.push({ level, message: String(message) });
  return {
    lines,
    log: record('log'),
    debug: record('debug'),
    warn: record('warn'),
    error: record('error'),
    verbose: record('verbose'),
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Polls until `pid` is gone (a test time-out, not an assertion on time, ends a wait that never ends). */
async function gone(pid: number): Promise<boolean> {
  while (alive(pid)) await new Promise((r) => setTimeout(r, 50));
  return true;
}

/**
 * Runs the child program (ts-node) on `dataDir`, under `wrapper` (a command it is an argument of) if
 * given; resolves with its postgres pid once it printed `ready`.
 */
function startChild(
  dataDir: string,
  mode: string,
  ids: { uid?: number; gid?: number } = {},
  node = process.execPath,
  wrapper: string[] = [],
) {
  const [command, ...args] = [...wrapper, node, '-r', 'ts-node/register', CHILD, dataDir, mode];
  const child = spawn(command, args, {
    cwd: ROOT,
    env: { ...process.env, TS_NODE_PROJECT: join(ROOT, 'tools/tsconfig.json'), TS_NODE_BASEURL: ROOT, NO_COLOR: '1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...ids,
  });
  let output = '';
  const ready = new Promise<{ pid: number; port: number }>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /^ready (\d+) (\d+)$/m.exec(output);
      if (match) resolve({ pid: Number(match[1]), port: Number(match[2]) });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the child exited (${code}) before it was ready: ${output}`)));
    child.once('error', reject);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, ready, exited, output: () => output };
}

describe('the embedded PostgreSQL', () => {
  let dataDir: string;
  let server: EmbeddedPostgres | undefined;
  const children: ChildProcess[] = [];

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'arrbiter-embedded-'));
  });

  afterEach(async () => {
    await server?.stop();
    server = undefined;
    for (const child of children.splice(0)) child.kill('SIGKILL');
    const pidFile = join(dataDir, 'pg', 'postmaster.pid');
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('initialises DATA_DIR/pg on the first start, listens on loopback with a generated 0600 password, and keeps its data across restarts', async () => {
    const logger = recordingLogger();
    server = await startEmbeddedDatabase(dataDir);
    const { connection } = server;
    const passwordFile = join(dataDir, EMBEDDED_PASSWORD_FILE);
    expect(statSync(passwordFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(passwordFile, 'utf8').trim()).toBe(connection.password);
    expect(connection.host).toBe('127.0.0.1');

    const client = new Client({ ...connection, user: connection.username });
    await client.connect();
    const [{ listen, shared }] = (
      await client.query<{ listen: string; shared: string }>(
        "SELECT current_setting('listen_addresses') AS listen, current_setting('shared_buffers') AS shared",
      )
    ).rows;
    await client.query('CREATE TABLE kept (value text)');
    await client.query("INSERT INTO kept VALUES ('still here')");
    await client.end();
    expect(listen).toBe('127.0.0.1');
    expect(shared).toBe('16MB');

    // Without the password: refused.
    const stranger = new Client({
      host: connection.host,
      port: connection.port,
      user: 'postgres',
      password: 'wrong',
      database: 'postgres',
    });
    stranger.on('error', () => undefined);
    await expect(stranger.connect()).rejects.toThrow(/password authentication failed/);

    const pid = server.pid as number;
    await server.stop();
    expect(alive(pid)).toBe(false);

    server = await EmbeddedPostgres.start(dataDir, join(dataDir, 'pg'), logger as never);
    const again = new Client({ ...server.connection, user: server.connection.username });
    await again.connect();
    const { rows } = await again.query<{ value: string }>('SELECT value FROM kept');
    await again.end();
    expect(rows).toEqual([{ value: 'still here' }]);
    await server.stop();
    server = undefined;

    // The server's log went to the logger: at debug level, never with the password.
    expect(
      logger.lines.some((line) => line.level === 'debug' && line.message.includes('ready to accept connections')),
    ).toBe(true);
    expect(logger.lines.some((line) => line.message.includes(connection.password))).toBe(false);
  });

  it('logs the server errors at error level', async () => {
    const logger = recordingLogger();
    await EmbeddedPostgres.initialise(dataDir, join(dataDir, 'pg'), logger as never);
    server = await EmbeddedPostgres.start(dataDir, join(dataDir, 'pg'), logger as never);
    const client = new Client({ ...server.connection, user: server.connection.username });
    await client.connect();
    await expect(client.query('SELECT * FROM no_such_table')).rejects.toThrow(/does not exist/);
    await client.end();
    await server.stop();
    server = undefined;
    expect(logger.lines).toContainEqual({
      level: 'error',
      message: expect.stringContaining('relation "no_such_table" does not exist'),
    });
  });

  it('starts cleanly after its process was killed with SIGKILL: the orphaned server is stopped first', async () => {
    const first = startChild(dataDir, 'wait');
    children.push(first.child);
    const { pid: orphan } = await first.ready;
    first.child.kill('SIGKILL');
    await first.exited;
    // A child process outlives its parent: the server of the killed process still runs.
    expect(alive(orphan)).toBe(true);

    server = await startEmbeddedDatabase(dataDir);
    expect(alive(orphan)).toBe(false);
    const client = new Client({ ...server.connection, user: server.connection.username });
    await client.connect();
    await client.query('SELECT 1');
    await client.end();
  });

  it('refuses a second process on the same DATA_DIR with one line that says so, and leaves the first running', async () => {
    server = await startEmbeddedDatabase(dataDir);
    const error = await startEmbeddedDatabase(dataDir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(EmbeddedDatabaseLockedError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^The embedded database in ${join(dataDir, 'pg')} is in use by another running Arrbiter \\(pid ${process.pid}\\): it serves one process only\\..*DATABASE_URL\\.$`,
      ),
    );
    expect((error as Error).message).not.toContain('\n');
    const client = new Client({ ...server.connection, user: server.connection.username });
    await client.connect();
    await client.query('SELECT 1');
    await client.end();
  });

  // A second container on the same volume: its own PID and IPC namespaces, where neither the first
  // server's pid nor its shared memory is visible, so PostgreSQL's postmaster.pid check passes.
  const unshare = ['unshare', '--pid', '--ipc', '--fork', '--mount-proc'];
  const canUnshare = process.getuid?.() === 0 && spawnSync(unshare[0], [...unshare.slice(1), 'true']).status === 0;
  (canUnshare ? it : it.skip)(
    'refuses a second process in other PID and IPC namespaces (a second container on the volume), and leaves the first running',
    async () => {
      server = await startEmbeddedDatabase(dataDir);
      const second = startChild(dataDir, 'query', {}, process.execPath, unshare);
      second.ready.catch(() => undefined);
      expect(await second.exited).toBe(1);
      expect(second.output()).toContain(
        `The embedded database in ${join(dataDir, 'pg')} is in use by another running Arrbiter (pid ${process.pid}`,
      );
      expect(second.output()).not.toMatch(/^ready /m);
      expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(true);
      const client = new Client({ ...server.connection, user: server.connection.username });
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
    },
  );

  it('replaces the pid file of a server that is gone', async () => {
    server = await startEmbeddedDatabase(dataDir);
    await server.stop();
    const finished = spawnSync('true');
    writeFileSync(join(dataDir, 'pg', 'postmaster.pid'), `${finished.pid}\n${join(dataDir, 'pg')}\n`);

    server = await startEmbeddedDatabase(dataDir);
    expect(server.pid).toBeDefined();
  });

  it('stops the server when its process dies of an uncaught exception', async () => {
    const child = startChild(dataDir, 'throw');
    children.push(child.child);
    const { pid } = await child.ready;
    expect(await child.exited).not.toBe(0);
    expect(await gone(pid)).toBe(true);
  });

  const asRoot = process.getuid?.() === 0;
  (asRoot ? it : it.skip)(
    'as root, runs the server as an unprivileged user, and runs as that user when started by it',
    async () => {
      // Started as root: the server runs as the OS user postgres.
      server = await startEmbeddedDatabase(dataDir);
      const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
      expect(Number(/^Uid:\s+(\d+)/m.exec(status)?.[1])).not.toBe(0);
      await server.stop();
      server = undefined;

      // Started by an unprivileged user (nobody) on a DATA_DIR it owns.
      const own = mkdtempSync(join(tmpdir(), 'arrbiter-embedded-nobody-'));
      const nobody = { uid: 65534, gid: 65534 };
      chownSync(own, nobody.uid, nobody.gid);
      // This Node.js may sit where nobody cannot reach it (root's home): a copy it can run.
      const node = join(own, 'node');
      copyFileSync(process.execPath, node);
      chmodSync(node, 0o755);
      try {
        const child = startChild(join(own, 'data'), 'query', nobody, node);
        children.push(child.child);
        await child.ready;
        expect(await child.exited).toBe(0);
        expect(child.output()).toContain('user postgres');
        expect(statSync(join(own, 'data', 'pg')).uid).toBe(nobody.uid);
      } finally {
        rmSync(own, { recursive: true, force: true });
      }
    },
  );
  if (!asRoot) {
    it('runs as the unprivileged user the tests run as (the root case needs root)', async () => {
      server = await startEmbeddedDatabase(dataDir);
      expect(statSync(join(dataDir, 'pg')).uid).toBe(process.getuid?.());
    });
  }

  it('fails with one line naming DATABASE_URL on a platform with no binaries', () => {
    const arch = Object.getOwnPropertyDescriptor(process, 'arch') as PropertyDescriptor;
    Object.defineProperty(process, 'arch', { value: 'mips' });
    try {
      expect(() => embeddedBinaries()).toThrow(EmbeddedDatabaseUnavailableError);
      expect(() => embeddedBinaries()).toThrow(
        /^The embedded PostgreSQL is not available on this platform \(.*mips.*\): set DATABASE_URL/,
      );
    } finally {
      Object.defineProperty(process, 'arch', arch);
    }
  });
});
