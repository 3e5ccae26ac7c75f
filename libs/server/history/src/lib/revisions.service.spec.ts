import { NotFoundException } from '@nestjs/common';
import type { RevisionSummary } from '@arrbiter/contracts';
import type { Clock } from '@arrbiter/server/config';
import type { DataSource, EntityManager } from 'typeorm';
import { FakeQueryBuilder } from '../testing/fake-query-builder';
import { RevisionEntity } from './entities/revision.entity';
import { RevisionRecord, RevisionsService } from './revisions.service';

const STAMP = new Date('2030-05-06T07:08:09.123Z');
const clock = { stamp: () => STAMP } as unknown as Clock;

const PROXY_A = '00000000-0000-4000-8000-0000000000a1';
const PROXY_B = '00000000-0000-4000-8000-0000000000b1';
const EARLIER_REVISION = '00000000-0000-4000-8000-0000000000e1';
const SUMMARY: RevisionSummary = { text: 'Configuration saved: 1 grant added', added: [], removed: [] };

/** The `revision` table in memory, reachable through entity managers (one per transaction) and a DataSource. */
class FakeRevisionTable {
  readonly rows: RevisionEntity[] = [];
  /** Which manager each save went through. */
  readonly savedThrough: string[] = [];

  manager(name: string): EntityManager {
    return {
      getRepository: (entity: unknown) => {
        if (entity !== RevisionEntity) throw new Error('not the revision table');
        return {
          create: (values: Partial<RevisionEntity>) => Object.assign(new RevisionEntity(), values),
          save: async (revision: RevisionEntity) => {
            this.savedThrough.push(name);
            const saved = Object.assign(new RevisionEntity(), revision, { id: this.nextId() });
            this.rows.push(saved);
            return saved;
          },
          findOneBy: async (where: Partial<RevisionEntity>) =>
            this.rows.find((row) =>
              Object.entries(where).every(([key, value]) => row[key as keyof RevisionEntity] === value),
            ) ?? null,
        };
      },
    } as unknown as EntityManager;
  }

  dataSource(): DataSource {
    return {
      manager: this.manager('default'),
      getRepository: (entity: unknown) => {
        if (entity !== RevisionEntity) throw new Error('not the revision table');
        return { createQueryBuilder: (alias: string) => new FakeQueryBuilder(RevisionEntity, alias, this.rows) };
      },
    } as unknown as DataSource;
  }

  /** Adds a stored revision of `proxyId`, `seconds` past a fixed time. */
  add(proxyId: string, seconds: number, fields: Partial<RevisionEntity> = {}): RevisionEntity {
    const revision = Object.assign(new RevisionEntity(), {
      id: this.nextId(),
      proxyId,
      kind: 'manual',
      overrides: {},
      active: true,
      author: 'admin',
      summary: SUMMARY,
      restoredFrom: null,
      createdAt: new Date(Date.UTC(2030, 0, 1, 0, 0, seconds)),
      ...fields,
    });
    this.rows.push(revision);
    return revision;
  }

  private nextId(): string {
    return `00000000-0000-4000-8000-${String(this.rows.length + 1).padStart(12, '0')}`;
  }
}

const RECORD: RevisionRecord = {
  proxyId: PROXY_A,
  kind: 'manual',
  overrides: { '/api/v3/movie': ['get'] },
  active: true,
  author: 'admin',
  summary: SUMMARY,
};

describe(RevisionsService.name, () => {
  describe('record', () => {
    it("saves the revision in the change's own transaction, stamped by the server's clock", async () => {
      const table = new FakeRevisionTable();
      const service = new RevisionsService(table.dataSource(), clock);

      const saved = await service.record(
        { ...RECORD, kind: 'restore', restoredFrom: EARLIER_REVISION },
        table.manager('transaction'),
      );

      expect(table.savedThrough).toEqual(['transaction']);
      expect(table.rows).toEqual([saved]);
      expect(saved).toEqual(
        Object.assign(new RevisionEntity(), {
          id: expect.any(String),
          ...RECORD,
          kind: 'restore',
          restoredFrom: EARLIER_REVISION,
          createdAt: STAMP,
        }),
      );
    });

    it('uses the default manager without a transaction, cuts the author and stores no restore as null', async () => {
      const table = new FakeRevisionTable();
      const saved = await new RevisionsService(table.dataSource(), clock).record({
        ...RECORD,
        author: 'x'.repeat(150),
      });

      expect(table.savedThrough).toEqual(['default']);
      expect(saved.author).toBe('x'.repeat(100));
      expect(saved.restoredFrom).toBeNull();
    });
  });

  describe('list', () => {
    it("lists one proxy's revisions, newest first, each as the API gives it", async () => {
      const table = new FakeRevisionTable();
      const older = table.add(PROXY_A, 1);
      table.add(PROXY_B, 2);
      const newer = table.add(PROXY_A, 3, {
        kind: 'restore',
        overrides: { '/api/v3/movie': [] },
        active: false,
        author: 'system',
        restoredFrom: older.id,
      });

      const page = await new RevisionsService(table.dataSource(), clock).list(PROXY_A, {});

      expect(page).toEqual({
        items: [
          {
            id: newer.id,
            proxyId: PROXY_A,
            kind: 'restore',
            overrides: { '/api/v3/movie': [] },
            active: false,
            author: 'system',
            createdAt: '2030-01-01T00:00:03.000Z',
            summary: SUMMARY,
            restoredFrom: older.id,
          },
          {
            id: older.id,
            proxyId: PROXY_A,
            kind: 'manual',
            overrides: {},
            active: true,
            author: 'admin',
            createdAt: '2030-01-01T00:00:01.000Z',
            summary: SUMMARY,
            restoredFrom: null,
          },
        ],
        nextCursor: null,
      });
    });

    it("pages through every revision of the proxy once, in order, and none of another proxy's", async () => {
      const table = new FakeRevisionTable();
      const mine: string[] = [];
      for (let i = 0; i < 30; i += 1) {
        mine.push(table.add(PROXY_A, Math.floor(i / 4)).id); // four to a second
        table.add(PROXY_B, Math.floor(i / 4));
      }
      const service = new RevisionsService(table.dataSource(), clock);

      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await service.list(PROXY_A, { limit: 7, cursor });
        expect(page.items.length).toBeLessThanOrEqual(7);
        seen.push(...page.items.map((item) => item.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);

      expect(seen).toEqual(mine.reverse());
    });
  });

  describe('find', () => {
    it("finds a revision of the proxy, and answers 404 for another proxy's or an unknown one", async () => {
      const table = new FakeRevisionTable();
      const mine = table.add(PROXY_A, 1);
      const theirs = table.add(PROXY_B, 1);
      const service = new RevisionsService(table.dataSource(), clock);

      await expect(service.find(PROXY_A, mine.id)).resolves.toBe(mine);
      await expect(service.find(PROXY_A, theirs.id)).rejects.toBeInstanceOf(NotFoundException);
      await expect(service.find(PROXY_A, '00000000-0000-4000-8000-999999999999')).rejects.toBeInstanceOf(
        NotFoundException,
      );
    });
  });
});
