import { NotFoundException } from '@nestjs/common';
import type { RevisionSummary } from '@arrbiter/contracts';
import { createTestDatabase, TestDatabase } from '@arrbiter/server/testing';
import { HistoryTestModule, startHistory } from '../testing/history-test-module';
import { RevisionEntity } from './entities/revision.entity';
import { RevisionRecord, RevisionsService } from './revisions.service';

const SUMMARY: RevisionSummary = { text: 'Configuration saved: 1 grant added', added: [], removed: [] };

describe(RevisionsService.name, () => {
  let database: TestDatabase;
  let t: HistoryTestModule;
  let service: RevisionsService;
  let proxyA: string;
  let proxyB: string;
  let record: RevisionRecord;

  beforeAll(async () => {
    database = await createTestDatabase();
    t = await startHistory(database.env);
    service = t.moduleRef.get(RevisionsService);
    proxyA = await t.addProxy();
    proxyB = await t.addProxy();
    record = {
      proxyId: proxyA,
      kind: 'manual',
      overrides: { '/api/v3/movie': ['get'] },
      active: true,
      author: 'admin',
      summary: SUMMARY,
    };
  });

  afterAll(async () => {
    await t?.close();
    await database?.drop();
  });

  beforeEach(async () => {
    await t.dataSource.query('DELETE FROM revision');
  });

  const stored = () => t.dataSource.getRepository(RevisionEntity).find({ order: { createdAt: 'ASC' } });

  /** Stores a revision of `proxyId`, `seconds` past a fixed time (as an earlier change stored it). */
  function add(proxyId: string, seconds: number, fields: Partial<RevisionEntity> = {}): Promise<RevisionEntity> {
    return t.dataSource.getRepository(RevisionEntity).save({
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
  }

  describe('record', () => {
    it("saves the revision in the caller's transaction, stamped by the server's clock", async () => {
      const earlier = await add(proxyA, 1);
      await expect(
        t.txHost.withTransaction(async () => {
          await service.record(record);
          throw new Error('the change failed');
        }),
      ).rejects.toThrow('the change failed');
      expect(await stored()).toEqual([earlier]);

      const before = t.clock.now();
      const saved = await t.txHost.withTransaction(() =>
        service.record({ ...record, kind: 'restore', restoredFrom: earlier.id }),
      );

      expect(saved).toMatchObject({ ...record, id: expect.any(String), kind: 'restore', restoredFrom: earlier.id });
      expect(saved.createdAt.getTime()).toBeGreaterThanOrEqual(before);
      expect((await stored()).map((row) => row.id).sort()).toEqual([earlier.id, saved.id].sort());
    });

    it('saves without a transaction too, cuts the author and stores no restore as null', async () => {
      const saved = await service.record({ ...record, author: 'x'.repeat(150) });

      expect(saved.author).toBe('x'.repeat(100));
      expect(saved.restoredFrom).toBeNull();
      expect(await stored()).toEqual([expect.objectContaining({ id: saved.id, author: 'x'.repeat(100) })]);
    });
  });

  describe('list', () => {
    it("lists one proxy's revisions, newest first, each as the API gives it", async () => {
      const older = await add(proxyA, 1);
      await add(proxyB, 2);
      const newer = await add(proxyA, 3, {
        kind: 'restore',
        overrides: { '/api/v3/movie': [] },
        active: false,
        author: 'system',
        restoredFrom: older.id,
      });

      expect(await service.list(proxyA, {})).toEqual({
        items: [
          {
            id: newer.id,
            proxyId: proxyA,
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
            proxyId: proxyA,
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
      const mine: RevisionEntity[] = [];
      for (let i = 0; i < 30; i += 1) {
        mine.push(await add(proxyA, Math.floor(i / 4))); // four to a second
        await add(proxyB, Math.floor(i / 4));
      }
      const expected = [...mine]
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
        .map((row) => row.id);

      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await service.list(proxyA, { limit: 7, cursor });
        expect(page.items.length).toBeLessThanOrEqual(7);
        seen.push(...page.items.map((item) => item.id));
        cursor = page.nextCursor ?? undefined;
      } while (cursor !== undefined);

      expect(seen).toEqual(expected);
    });
  });

  describe('find', () => {
    it("finds a revision of the proxy, and answers 404 for another proxy's or an unknown one", async () => {
      const mine = await add(proxyA, 1);
      const theirs = await add(proxyB, 1);

      await expect(service.find(proxyA, mine.id)).resolves.toEqual(mine);
      await expect(service.find(proxyA, theirs.id)).rejects.toBeInstanceOf(NotFoundException);
      await expect(service.find(proxyA, '00000000-0000-4000-8000-999999999999')).rejects.toBeInstanceOf(
        NotFoundException,
      );
    });
  });
});
