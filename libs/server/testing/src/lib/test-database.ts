import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

/** The database a test suite runs on, and how to throw it away. */
export interface TestDatabase {
  /** Environment for `loadConfig`: DATA_DIR, and DATABASE_URL + SECRET_KEY on real PostgreSQL. */
  env: NodeJS.ProcessEnv;
  kind: 'embedded' | 'postgres';
  drop(): Promise<void>;
}

/** A 32-byte test key (hex). */
export const TEST_SECRET_KEY = randomBytes(32).toString('hex');

/**
 * A fresh, empty database for one suite: a new embedded PostgreSQL in a temporary DATA_DIR, or,
 * when the run sets DATABASE_URL, a new database on that PostgreSQL server (dropped afterwards).
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const dataDir = mkdtempSync(join(tmpdir(), 'arrbiter-test-'));
  const removeDir = () => rmSync(dataDir, { recursive: true, force: true });
  const serverUrl = process.env['DATABASE_URL'];
  if (!serverUrl) {
    // An initialised data directory (the jest set-up's), copied rather than initialised again.
    const template = process.env['ARRBITER_TEST_PG_TEMPLATE'];
    if (template && existsSync(template)) cpSync(template, dataDir, { recursive: true });
    return { env: { DATA_DIR: dataDir }, kind: 'embedded', drop: async () => removeDir() };
  }
  const name = `arrbiter_test_${randomBytes(6).toString('hex')}`;
  const admin = new Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    env: { DATA_DIR: dataDir, DATABASE_URL: url.toString(), SECRET_KEY: TEST_SECRET_KEY },
    kind: 'postgres',
    drop: async () => {
      const client = new Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await client.end();
        removeDir();
      }
    },
  };
}
