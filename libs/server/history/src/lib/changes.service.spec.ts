import { BadRequestException } from '@nestjs/common';
import type { ChangeObjectType } from '@arrbiter/contracts';
import type { Clock } from '@arrbiter/server/config';
import type { DataSource, EntityManager } from 'typeorm';
import { FakeQueryBuilder } from '../testing/fake-query-builder';
import { ChangeRecord, ChangesService } from './changes.service';
import { ChangeEntity } from './entities/change.entity';

const STAMP = new Date('2030-05-06T07:08:09.123Z');
const clock = { stamp: () => STAMP } as unknown as Clock;

const APP_A = '00000000-0000-4000-8000-00000000000a';
const APP_B = '00000000-0000-4000-8000-00000000000b';

/** An entity manager that keeps what is inserted. */
function manager() {
  const inserted: { entity: unknown; values: unknown }[] = [];
  const fake = {
    insert: async (entity: unknown, values: unknown) => void inserted.push({ entity, values }),
  } as unknown as EntityManager;
  return { fake, inserted };
}

/** A DataSource over the `change` rows given, whose default manager is `defaultManager`. */
function dataSource(rows: ChangeEntity[] = [], defaultManager = manager().fake): DataSource {
  return {
    manager: defaultManager,
    getRepository: (entity: unknown) => {
      if (entity !== ChangeEntity) throw new Error('not the change table');
      return { createQueryBuilder: (alias: string) => new FakeQueryBuilder(ChangeEntity, alias, rows) };
    },
  } as unknown as DataSource;
}

let sequence = 0;
/** A stored change; ids grow with creation, `at` is given in seconds past a fixed time. */
function change(seconds: number, fields: Partial<ChangeEntity> = {}): ChangeEntity {
  sequence += 1;
  return Object.assign(new ChangeEntity(), {
    id: `00000000-0000-4000-8000-${String(sequence).padStart(12, '0')}`,
    at: new Date(Date.UTC(2030, 0, 1, 0, 0, seconds)),
    actor: 'admin',
    action: 'app.updated',
    objectType: 'app' as ChangeObjectType,
    objectId: APP_A,
    objectName: 'Notifiarr',
    appId: APP_A,
    summary: `change at ${seconds}s`,
    ...fields,
  });
}

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
  describe('record', () => {
    it("inserts one change, stamped by the server's clock, in the write's own transaction", async () => {
      const outside = manager();
      const transaction = manager();
      const service = new ChangesService(dataSource([], outside.fake), clock);

      await service.record(RECORD, transaction.fake);

      expect(outside.inserted).toEqual([]);
      expect(transaction.inserted).toEqual([{ entity: ChangeEntity, values: { ...RECORD, at: STAMP } }]);
    });

    it('uses the default manager without a transaction, and stores what was left out as null', async () => {
      const outside = manager();
      const service = new ChangesService(dataSource([], outside.fake), clock);

      await service.record({ actor: 'system', action: 'catalog.refreshed', objectType: 'service', summary: 'x' });

      expect(outside.inserted).toEqual([
        {
          entity: ChangeEntity,
          values: {
            at: STAMP,
            actor: 'system',
            action: 'catalog.refreshed',
            objectType: 'service',
            objectId: null,
            objectName: null,
            appId: null,
            summary: 'x',
          },
        },
      ]);
    });

    it("cuts the actor, object name and summary to their columns' lengths", async () => {
      const outside = manager();
      await new ChangesService(dataSource([], outside.fake), clock).record({
        ...RECORD,
        actor: 'a'.repeat(150),
        objectName: 'n'.repeat(250),
        summary: 's'.repeat(1_500),
      });

      const values = outside.inserted[0].values as ChangeEntity;
      expect([values.actor.length, values.objectName?.length, values.summary.length]).toEqual([100, 200, 1_000]);
    });
  });

  describe('list', () => {
    it('lists changes newest first, each as the API gives it', async () => {
      const older = change(1);
      const newer = change(2, { actor: 'alice', objectType: 'proxy', objectId: null, objectName: null, appId: null });
      const page = await new ChangesService(dataSource([older, newer]), clock).list({});

      expect(page).toEqual({
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
      const rows = Array.from({ length: 120 }, (_, i) => change(Math.floor(i / 3)));
      const expected = [...rows].reverse().map((row) => row.id);
      const service = new ChangesService(dataSource(rows), clock);

      const first = await service.list({});
      expect(first.items).toHaveLength(50); // the default page
      const seen = [...first.items];
      let cursor = first.nextCursor;
      while (cursor !== null) {
        const page = await service.list({ limit: 7, cursor });
        seen.push(...page.items);
        cursor = page.nextCursor;
      }

      expect(seen.map((item) => item.id)).toEqual(expected);
    });

    it('has no next page when the last page is exactly full', async () => {
      const rows = Array.from({ length: 4 }, (_, i) => change(i));
      const service = new ChangesService(dataSource(rows), clock);

      const first = await service.list({ limit: 2 });
      expect(first.nextCursor).not.toBeNull();
      const second = await service.list({ limit: 2, cursor: first.nextCursor ?? undefined });
      expect(second.items).toHaveLength(2);
      expect(second.nextCursor).toBeNull();
    });

    it('keeps only the changes matching every filter given', async () => {
      const rows = [
        change(1, { objectType: 'app', objectId: APP_A, appId: APP_A, actor: 'alice' }),
        change(2, { objectType: 'app', objectId: APP_B, appId: APP_B, actor: 'bob' }),
        change(3, {
          objectType: 'proxy',
          objectId: '00000000-0000-4000-8000-0000000000c1',
          appId: APP_A,
          actor: 'bob',
        }),
        change(4, { objectType: 'service', objectId: null, appId: null, actor: 'system' }),
      ];
      const service = new ChangesService(dataSource(rows), clock);
      const summaries = async (query: Parameters<ChangesService['list']>[0]) =>
        (await service.list(query)).items.map((item) => item.summary);

      expect(await summaries({ objectType: 'app' })).toEqual(['change at 2s', 'change at 1s']);
      expect(await summaries({ objectId: APP_B })).toEqual(['change at 2s']);
      expect(await summaries({ appId: APP_A })).toEqual(['change at 3s', 'change at 1s']);
      expect(await summaries({ actor: 'bob' })).toEqual(['change at 3s', 'change at 2s']);
      expect(await summaries({ appId: APP_A, actor: 'bob' })).toEqual(['change at 3s']);
      expect(await summaries({ objectType: 'service', actor: 'alice' })).toEqual([]);
    });

    it('refuses a cursor it did not hand out', async () => {
      await expect(
        new ChangesService(dataSource([change(1)]), clock).list({ cursor: 'bm90IGEgY3Vyc29y' }),
      ).rejects.toBeInstanceOf(BadRequestException);
    });
  });
});
