import { loadConfig } from '@arrbiter/server/config';
import { ArrbiterDataSource, openDataSource } from '@arrbiter/server/database';
import { createTestDatabase, TestDatabase } from '@arrbiter/server/testing';
import { ENTITIES } from './schema-entities';

describe('migrations', () => {
  let database: TestDatabase;
  let dataSource: ArrbiterDataSource;

  beforeAll(async () => {
    database = await createTestDatabase();
    dataSource = await openDataSource(loadConfig({ ...database.env, LOG_LEVEL: 'silent' }), {
      entities: ENTITIES,
      migrate: true,
    });
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database.drop();
  });

  it('match the entities exactly (run `npm run db:migration:generate -- <Name>` when this fails)', async () => {
    const pending = await dataSource.driver.createSchemaBuilder().log();
    expect(pending.upQueries.map((q) => q.query)).toEqual([]);
  });

  it('each have a down() that undoes them, and apply again afterwards', async () => {
    const count = dataSource.migrations.length;
    expect(count).toBeGreaterThan(0);
    for (let i = 0; i < count; i += 1) await dataSource.undoLastMigration({ transaction: 'each' });
    const tables: { name: string }[] = await dataSource.query(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'migrations'`,
    );
    expect(tables).toEqual([]);
    await dataSource.runMigrations({ transaction: 'each' });
    expect((await dataSource.driver.createSchemaBuilder().log()).upQueries).toEqual([]);
  });
});
