import { mkdirSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { pgcrypto } from '@electric-sql/pglite/contrib/pgcrypto';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

/** PGlite's minimum; the default doubles resident memory for no gain at this size. */
const INITIAL_MEMORY = 128 * 1024 * 1024;

/**
 * PostgreSQL embedded in this process: PGlite, file-backed, behind an in-process socket server
 * on a loopback port so that the ordinary `pg` driver (and so TypeORM's `postgres` driver) reaches it.
 * All socket connections share one backend session: callers must use a pool of exactly one connection.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly server: PGLiteSocketServer,
    readonly host: string,
    readonly port: number,
  ) {}

  static async start(directory: string): Promise<EmbeddedPostgres> {
    mkdirSync(directory, { recursive: true, mode: 0o700 });
    const db = await PGlite.create(directory, { extensions: { pgcrypto }, initialMemory: INITIAL_MEMORY });
    const host = '127.0.0.1';
    const server = new PGLiteSocketServer({ db, host, port: 0 });
    try {
      await server.start();
    } catch (error) {
      await db.close();
      throw error;
    }
    const address = (server as unknown as { server: { address(): AddressInfo } }).server.address();
    return new EmbeddedPostgres(db, server, host, address.port);
  }

  /** A connection string for the `pg` driver. */
  get url(): string {
    return `postgres://postgres@${this.host}:${this.port}/postgres`;
  }

  async stop(): Promise<void> {
    await this.server.stop();
    if (!this.db.closed) await this.db.close();
  }
}
