import { BadRequestException } from '@nestjs/common';
import { createTestDatabase, TestDatabase } from '@arrbiter/server/testing';
import { randomUUID } from 'node:crypto';
import { HistoryTestModule, startHistory } from '../testing/history-test-module';
import { ChangeRecord, ChangesService } from './changes.service';
import { ChangeEntity } from './entities/change.entity';

const APP_A = '00000000-0000-4000-8000-00000000000a';
const APP_B = '00000000-0000-4000-8000-00000000000b';

const RECORD: ChangeRecord = {
  actor: 'admin',
  action: 'app.created',
  objectType: 'app',
  objectId: APP_A,
  objectName: 'Notifiarr',
  appId: APP_A,
  summary: 'App "Notifiarr" created',
};

describe(ChangesService.name, () => {
  let database: TestDatabase;
  let t: HistoryTestModule;
  let service: ChangesService;

  beforeAll(async () => {
    database = await createTestDatabase();
    t = await startHistory(database.env);
    service = t.moduleRef.get(ChangesService);
  });

  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  beforeEach(async () => {
    await t.dataSource.query('DELETE FROM change');
  });

  const stored = () => t.dataSource.getRepository(ChangeEntity).find({ order: { at: 'ASC' } });

  /** Stores a change `seconds` past a fixed time (as another write stored it). */
  async function change(seconds: number, fields: Partial<ChangeEntity> = {}): Promise<ChangeEntity> {
    return t.dataSource.getRepository(ChangeEntity).save({
      id: randomUUID(),
      at: new Date(Date.UTC(2030, 0, 1, 0, 0, seconds)),
      actor: 'admin',
      action: 'app.updated',
      objectType: 'app',
      objectId: APP_A,
      objectName: 'Notifiarr',
      appId: APP_A,
      summary: `change at ${seconds}s`,
      ...fields,
    });
  }

  /** Newest first, ties by id (descending), as the list orders them. */
  const newestFirst = (rows: ChangeEntity[]) =>
    [...rows].sort((a, b) => b.at.getTime() - a.at.getTime() || (a.id < b.id ? 1 : -1)).map((row) => row.id);

  describe('record', () => {
    it("inserts one change, stamped by the server's clock, in the caller's transaction", async () => {
      const before = t.clock.now();
      await expect(
        t.txHost.withTransaction(async () => {
          await service.record(RECORD);
          throw new Error('the write failed');
        }),
      ).rejects.toThrow('the write failed');
      expect(await stored()).toEqual([]);

      await t.txHost.withTransaction(() => service.record(RECORD));

      const [row] = await stored();
      expect(row).toEqual({ ...RECORD, id: expect.any(String), at: expect.any(Date) });
      expect(row.at.getTime()).toBeGreaterThanOrEqual(before);
    });

    it('stores without a transaction too, and what was left out as null', async () => {
      await service.record({ actor: 'system', action: 'catalog.refreshed', objectType: 'service', summary: 'x' });

      expect(await stored()).toEqual([
        {
          id: expect.any(String),
          at: expect.any(Date),
          actor: 'system',
          action: 'catalog.refreshed',
          objectType: 'service',
          objectId: null,
          objectName: null,
          appId: null,
          summary: 'x',
        },
      ]);
    });

    it("cuts the actor, object name and summary to their columns' lengths", async () => {
      await service.record({
        ...RECORD,
        actor: 'a'.repeat(150),
        objectName: 'n'.repeat(250),
        summary: 's'.repeat(1_500),
      });

      const [row] = await stored();
      expect([row.actor.length, row.objectName?.length, row.summary.length]).toEqual([100, 200, 1_000]);
    });
  });

  describe('list', () => {
    it('lists changes newest first, each as the API gives it', async () => {
      const older = await change(1);
      const newer = await change(2, {
        actor: 'alice',
        objectType: 'proxy',
        objectId: null,
        objectName: null,
        appId: null,
      });

      expect(await service.list({})).toEqual({
        items: [
          {
            id: newer.id,
            at: '2030-01-01T00:00:02.000Z',
            actor: 'alice',
            action: 'app.updated',
            objectType: 'proxy',
            objectId: null,
            objectName: null,
            appId: null,
            summary: 'change at 2s',
          },
          {
            id: older.id,
            at: '2030-01-01T00:00:01.000Z',
            actor: 'admin',
            action: 'app.updated',
            objectType: 'app',
            objectId: APP_A,
            objectName: 'Notifiarr',
            appId: APP_A,
            summary: 'change at 1s',
          },
        ],
        nextCursor: null,
      });
    });

    it('pages through every change once, in order, changes of the same instant included', async () => {
      // 120 changes, three to a second: a page boundary falls inside a second.
      const rows: ChangeEntity[] = [];
      for (let i = 0; i < 120; i += 1) rows.push(await change(Math.floor(i / 3)));

      const first = await service.list({});
      expect(first.items).toHaveLength(50); // the default page
      const seen = [...first.items];
      let cursor = first.nextCursor;
      while (cursor !== null) {
        const page = await service.list({ limit: 7, cursor });
        seen.push(...page.items);
        cursor = page.nextCursor;
      }

      expect(seen.map((item) => item.id)).toEqual(newestFirst(rows));
    });

    it('has no next page when the last page is exactly full', async () => {
      for (let i = 0; i < 4; i += 1) await change(i);

      const first = await service.list({ limit: 2 });
      expect(first.nextCursor).not.toBeNull();
      const second = await service.list({ limit: 2, cursor: first.nextCursor ?? undefined });
      expect(second.items).toHaveLength(2);
      expect(second.nextCursor).toBeNull();
    });

    it('keeps only the changes matching every filter given', async () => {
      await change(1, { objectType: 'app', objectId: APP_A, appId: APP_A, actor: 'alice' });
      await change(2, { objectType: 'app', objectId: APP_B, appId: APP_B, actor: 'bob' });
      await change(3, {
        objectType: 'proxy',
        objectId: '00000000-0000-4000-8000-0000000000c1',
        appId: APP_A,
        actor: 'bob',
      });
      await change(4, { objectType: 'service', objectId: null, appId: null, actor: 'system' });
      const summaries = async (query: Parameters<ChangesService['list']>[0]) =>
        (await service.list(query)).items.map((item) => item.summary);

      expect(await summaries({ objectType: 'app' })).toEqual(['change at 2s', 'change at 1s']);
      expect(await summaries({ objectId: APP_B })).toEqual(['change at 2s']);
      expect(await summaries({ appId: APP_A })).toEqual(['change at 3s', 'change at 1s']);
      expect(await summaries({ actor: 'bob' })).toEqual(['change at 3s', 'change at 2s']);
      expect(await summaries({ appId: APP_A, actor: 'bob' })).toEqual(['change at 3s']);
      expect(await summaries({ objectType: 'service', actor: 'alice' })).toEqual([]);
    });

    it('leaves out sign-ins and sign-outs when asked (signIns: false), and keeps them otherwise', async () => {
      await change(1, { action: 'session.signed-in', objectType: 'session' });
      await change(2, { action: 'app.updated' });
      await change(3, { action: 'session.signed-out', objectType: 'session' });
      await change(4, { action: 'session.revoked', objectType: 'session' });
      const summaries = async (query: Parameters<ChangesService['list']>[0]) =>
        (await service.list(query)).items.map((item) => item.summary);

      expect(await summaries({ signIns: false })).toEqual(['change at 4s', 'change at 2s']);
      expect(await summaries({})).toEqual(['change at 4s', 'change at 3s', 'change at 2s', 'change at 1s']);
      expect(await summaries({ signIns: true })).toHaveLength(4);
    });

    it('refuses a cursor it did not hand out', async () => {
      await change(1);
      await expect(service.list({ cursor: 'bm90IGEgY3Vyc29y' })).rejects.toBeInstanceOf(BadRequestException);
    });
  });
});
