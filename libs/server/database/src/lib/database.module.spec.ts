import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { TransactionHost } from '@nestjs-cls/transactional';
import { Test, TestingModule } from '@nestjs/testing';
import { ConfigModule, loadConfig } from '@arrbiter/server/config';
import { createTestDatabase, TestDatabase } from '@arrbiter/server/testing';
import { DataSource } from 'typeorm';
import { ArrbiterDataSource } from './arrbiter-data-source';
import { DatabaseLifecycle, DatabaseModule } from './database.module';

/** DatabaseModule on a fresh test database (embedded, or PostgreSQL when DATABASE_URL is set). */
async function start(env: NodeJS.ProcessEnv): Promise<TestingModule> {
  const moduleRef = await Test.createTestingModule({
    imports: [
      ConfigModule.forRoot(loadConfig({ ...env, LOG_LEVEL: 'silent', TEMPLATE_REPOSITORY: 'none' })),
      DatabaseModule.forRoot({ entities: [], migrate: true }),
    ],
  }).compile();
  return moduleRef.init();
}

describe(DatabaseModule.name, () => {
  let database: TestDatabase;
  let moduleRef: TestingModule | undefined;

  beforeEach(async () => {
    database = await createTestDatabase();
  });

  afterEach(async () => {
    await moduleRef?.close();
    moduleRef = undefined;
    await database.drop();
  });

  it('opens the ArrbiterDataSource through TypeOrmModule, migrated', async () => {
    moduleRef = await start(database.env);
    const dataSource = moduleRef.get(DataSource);

    expect(dataSource).toBeInstanceOf(ArrbiterDataSource);
    expect(dataSource.isInitialized).toBe(true);
    expect(await dataSource.showMigrations()).toBe(false);
  });

  it('runs the registered drains on shutdown, in order, while the pool is still open, then closes it', async () => {
    const ref = await start(database.env);
    const dataSource = ref.get(DataSource);
    const lifecycle = ref.get(DatabaseLifecycle);
    const events: string[] = [];
    lifecycle.beforeClose(async () => {
      const [row] = await dataSource.query<{ one: number }[]>('SELECT 1 AS one');
      events.push(`first drain read ${row.one}`);
    });
    lifecycle.beforeClose(async () => {
      events.push(`second drain, pool open: ${dataSource.isInitialized}`);
    });

    await ref.close();

    expect(events).toEqual(['first drain read 1', 'second drain, pool open: true']);
    expect(dataSource.isInitialized).toBe(false);
  });

  it('commits the TransactionHost transaction as a whole, or rolls all of it back', async () => {
    moduleRef = await start(database.env);
    const dataSource = moduleRef.get(DataSource);
    const txHost = moduleRef.get<TransactionHost<TransactionalAdapterTypeOrm>>(TransactionHost);
    await dataSource.query('CREATE TABLE probe (n integer NOT NULL)');
    const count = async () => Number((await dataSource.query<{ n: string }[]>('SELECT count(*) AS n FROM probe'))[0].n);

    await expect(
      txHost.withTransaction(async () => {
        await txHost.tx.query('INSERT INTO probe (n) VALUES (1)');
        // Inside, the transaction sees its own write; outside it is not visible until the commit.
        expect(Number((await txHost.tx.query<{ n: string }[]>('SELECT count(*) AS n FROM probe'))[0].n)).toBe(1);
        throw new Error('abandoned');
      }),
    ).rejects.toThrow('abandoned');
    expect(await count()).toBe(0);

    await txHost.withTransaction(async () => {
      await txHost.tx.query('INSERT INTO probe (n) VALUES (1)');
      await txHost.tx.query('INSERT INTO probe (n) VALUES (2)');
    });
    expect(await count()).toBe(2);
  });

  it('fails the start-up at once when the database cannot be reached', async () => {
    // Nothing listens on port 1: the connection is refused, and TypeOrmModule must not retry it.
    const unreachable = {
      ...database.env,
      DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none',
      SECRET_KEY: '00'.repeat(32),
    };
    await expect(start(unreachable)).rejects.toThrow(/ECONNREFUSED/);
  });
});
