import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedDatabase } from '@arrbiter/server/database';
import { createTestDatabase, TEST_SECRET_KEY, TestDatabase } from '@arrbiter/server/testing';

/**
 * One fresh PostgreSQL database for several server instances (replicas), each given a DATA_DIR of its
 * own by `instanceEnv()`: a new database on the run's `DATABASE_URL` server, or else an embedded
 * PostgreSQL server started here (from the test template) and reached through its URL, as replicas
 * reach an external one.
 */
export async function createSharedDatabase(): Promise<
  TestDatabase & { url: string; instanceEnv(): NodeJS.ProcessEnv }
> {
  const base = await createTestDatabase();
  const dataDirs: string[] = [];
  const instanceEnv = () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'arrbiter-replica-'));
    dataDirs.push(dataDir);
    return { ...shared.env, DATA_DIR: dataDir };
  };
  const removeDirs = () => {
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  };
  let shared: TestDatabase & { url: string };
  if (base.kind === 'postgres') {
    shared = { ...base, url: base.env['DATABASE_URL'] as string };
    const drop = base.drop;
    shared.drop = async () => {
      await drop();
      removeDirs();
    };
  } else {
    const server = await startEmbeddedDatabase(base.env['DATA_DIR'] as string);
    const { username, password, host, port, database } = server.connection;
    const url = `postgres://${username}:${encodeURIComponent(password)}@${host}:${port}/${database}`;
    shared = {
      kind: 'embedded',
      url,
      env: { DATABASE_URL: url, SECRET_KEY: TEST_SECRET_KEY },
      drop: async () => {
        await server.stop();
        await base.drop();
        removeDirs();
      },
    };
  }
  return { ...shared, instanceEnv };
}
