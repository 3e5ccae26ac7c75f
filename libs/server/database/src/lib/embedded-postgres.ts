import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { Logger } from '@nestjs/common';

/** PGlite's minimum; the default doubles resident memory for no gain at this size. */
const INITIAL_MEMORY = 128 * 1024 * 1024;

/**
 * The worker's program: PGlite, file-backed, and its socket server. Plain CommonJS (a worker runs it as
 * it is); packages are resolved from this module's location, whatever the working directory.
 */
const WORKER_SOURCE = `
const { createRequire } = require('node:module');
const { parentPort, workerData } = require('node:worker_threads');
const load = createRequire(workerData.anchor);
const { PGlite } = load('@electric-sql/pglite');
const { pgcrypto } = load('@electric-sql/pglite/contrib/pgcrypto');
const { PGLiteSocketServer } = load('@electric-sql/pglite-socket');
(async () => {
  const db = await PGlite.create(workerData.directory, { extensions: { pgcrypto }, initialMemory: workerData.initialMemory });
  const server = new PGLiteSocketServer({ db, host: workerData.host, port: 0 });
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
      reject(new Error(`The embedded database's thread exited (${code})`));
    };
    worker.once('message', onMessage);
    worker.once('error', onError);
    worker.once('exit', onExit);
  });
}

/**
 * PostgreSQL embedded in this process: PGlite, file-backed, behind a socket server on a loopback port so
 * that the ordinary `pg` driver (and so TypeORM's `postgres` driver) reaches it. Both run on a worker
 * thread: PGlite's few hundred MB of WebAssembly and JavaScript stay out of the main thread's heap and
 * event loop, which serve the proxy (measured by `npm run bench`). All socket connections share one
 * backend session: callers must use a pool of exactly one connection.
 */
export class EmbeddedPostgres {
  private stopping?: Promise<void>;

  private constructor(
    private readonly worker: Worker,
    readonly host: string,
    readonly port: number,
  ) {}

  static async start(directory: string): Promise<EmbeddedPostgres> {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    const host = '127.0.0.1';
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { directory, host, initialMemory: INITIAL_MEMORY, anchor: join(__dirname, 'anchor.js') },
    });
    const started = await nextMessage(worker);
    if (!('port' in started)) {
      await worker.terminate();
      throw new Error(`The embedded database did not start: ${'error' in started ? started.error : 'no port'}`);
    }
    // Later failures of the thread must not take the process down: queries then fail, and
    // /health/ready says so.
    const logger = new Logger(EmbeddedPostgres.name);
    worker.on('error', (error: Error) => logger.error(`The embedded database failed: ${error.message}`));
    return new EmbeddedPostgres(worker, host, started.port);
  }

  /** A connection string for the `pg` driver. */
  get url(): string {
    return `postgres://postgres@${this.host}:${this.port}/postgres`;
  }

  /** Closes the database and ends its thread; calling it again waits for the same stop. */
  stop(): Promise<void> {
    this.stopping ??= this.stopOnce();
    return this.stopping;
  }

  private async stopOnce(): Promise<void> {
    const stopped = nextMessage(this.worker).catch((error: unknown) => ({ error: String(error) }));
    this.worker.postMessage('stop');
    const result = await stopped;
    await this.worker.terminate();
    if ('error' in result) throw new Error(`The embedded database did not stop cleanly: ${result.error}`);
  }
}
