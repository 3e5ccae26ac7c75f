import { BadRequestException, ConflictException, HttpException, NotFoundException } from '@nestjs/common';
import type { ChangeBus, ChangeTopic } from '@arrbiter/server/database';
import type { ChangeRecord, ChangesService } from '@arrbiter/server/history';
import type { TemplatesService } from '@arrbiter/server/templates';
import type { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { QueryFailedError, Repository } from 'typeorm';
import { AppProxyCounts } from './app-proxy-counts';
import { AppsService } from './apps.service';
import { AppEntity } from './entities/app.entity';

const TEMPLATE_RADARR = '00000000-0000-4000-8000-0000000000f1';
const TEMPLATE_SONARR = '00000000-0000-4000-8000-0000000000f2';
const UNKNOWN = '00000000-0000-4000-8000-999999999999';

/** What PostgreSQL's `pg` driver reports for a duplicate slug, as TypeORM wraps it. */
function uniqueViolation(): QueryFailedError {
  const driverError = Object.assign(new Error('duplicate key value violates unique constraint'), { code: '23505' });
  return new QueryFailedError('INSERT INTO "app" …', [], driverError);
}

/**
 * The `app` table in memory, behind a fake repository and `TransactionHost`: the repository hands out
 * copies (as rows read from a database are), `slug` is unique, writes outside a transaction are refused,
 * and a transaction's writes are undone when its callback throws.
 * `events` records transactions and what was published, in order. Templates and proxies, which other
 * domains own, are what the fake `TemplatesService` and `AppProxyCounts` answer from. (The list's paging,
 * search and filters run on a real database: apps/server/src/app/apps-list.spec.ts.)
 */
class FakeDatabase {
  apps = new Map<string, AppEntity>();
  /** Template names by id. */
  readonly templates = new Map<string, string>();
  /** `proxy.app_id` of every proxy. */
  readonly proxies: string[] = [];
  readonly events: string[] = [];
  /** What the next save of an app fails with, if anything. */
  failNextSave?: Error;
  private ids = 0;
  private clock = Date.UTC(2030, 0, 1);

  /** Whether a `TransactionHost` transaction is running. */
  inTransaction = false;

  readonly repository = this.appRepository() as unknown as Repository<AppEntity>;
  readonly txHost = {
    tx: {
      // The service must reach the table through the current transaction's manager.
      withRepository: (repository: unknown) => {
        if (repository !== this.repository) throw new Error('not the app repository');
        return this.appRepository();
      },
    },
    isTransactionActive: () => this.inTransaction,
    withTransaction: async <T>(work: () => Promise<T>): Promise<T> => {
      if (this.inTransaction) throw new Error('nested transaction');
      const before = new Map(this.apps);
      this.inTransaction = true;
      this.events.push('begin');
      try {
        const result = await work();
        this.events.push('commit');
        return result;
      } catch (error) {
        this.apps = before;
        this.events.push('rollback');
        throw error;
      } finally {
        this.inTransaction = false;
      }
    },
  } as unknown as TransactionHost<TransactionalAdapterTypeOrm>;

  addTemplate(id: string, name: string): void {
    this.templates.set(id, name);
  }

  addApp(fields: Pick<AppEntity, 'name' | 'slug'> & Partial<AppEntity>): AppEntity {
    const app = this.stored({ templateId: null, active: true, ...fields } as AppEntity);
    return { ...app };
  }

  /** Every app as stored, by slug. */
  slugs(): string[] {
    return [...this.apps.values()].map((app) => app.slug).sort();
  }

  private appRepository() {
    return {
      create: (values: Partial<AppEntity>) => Object.assign(new AppEntity(), values),
      save: async (app: AppEntity) => {
        this.writing();
        const failure = this.failNextSave;
        this.failNextSave = undefined;
        if (failure) throw failure;
        return { ...this.stored(app) };
      },
      findOneBy: async ({ id }: { id: string }) => {
        const app = this.apps.get(id);
        return app ? Object.assign(new AppEntity(), app) : null;
      },
      delete: async ({ id }: { id: string }) => {
        this.writing();
        this.apps.delete(id);
        return { affected: 1 };
      },
    };
  }

  private writing(): void {
    if (!this.inTransaction) throw new Error('a write outside a transaction');
  }

  private stored(app: AppEntity): AppEntity {
    if ([...this.apps.values()].some((other) => other.slug === app.slug && other.id !== app.id))
      throw uniqueViolation();
    this.clock += 1_000;
    const now = new Date(this.clock);
    const id = app.id ?? `00000000-0000-4000-8000-${String((this.ids += 1)).padStart(12, '0')}`;
    const row = Object.assign(new AppEntity(), app, { id, createdAt: app.createdAt ?? now, updatedAt: now });
    this.apps.set(id, row);
    return row;
  }
}

/** The collaborators of the service: a fake database, audit trail, change bus, templates and proxy counts. */
function setUp() {
  const db = new FakeDatabase();
  db.addTemplate(TEMPLATE_RADARR, 'Radarr read-only');
  db.addTemplate(TEMPLATE_SONARR, 'Sonarr read-only');
  const recorded: { change: ChangeRecord; manager: string }[] = [];
  let failRecording = false;
  const audit = {
    record: async (change: ChangeRecord) => {
      if (failRecording) throw new Error('could not record the change');
      recorded.push({ change, manager: db.inTransaction ? 'transaction' : 'default' });
    },
  } as unknown as ChangesService;
  const published: { topic: ChangeTopic; id?: string }[] = [];
  const changes = {
    publish: async (topic: ChangeTopic, id?: string) => {
      db.events.push(`publish ${topic}`);
      published.push({ topic, id });
    },
  } as unknown as ChangeBus;
  const asked: string[][] = [];
  const templates = {
    namesOf: async (ids: readonly string[]) => {
      asked.push([...ids]);
      return new Map(ids.flatMap((id) => (db.templates.has(id) ? [[id, db.templates.get(id) as string]] : [])));
    },
  } as unknown as TemplatesService;
  const proxyCounts = new (class extends AppProxyCounts {
    async countFor(appIds: readonly string[]): Promise<Map<string, number>> {
      asked.push([...appIds]);
      const counts = new Map<string, number>();
      for (const appId of db.proxies) if (appIds.includes(appId)) counts.set(appId, (counts.get(appId) ?? 0) + 1);
      return counts;
    }
  })();
  const service = new AppsService(db.repository, db.txHost, changes, audit, templates, proxyCounts);
  return {
    db,
    service,
    recorded,
    published,
    /** The ids the templates and proxy counts were asked about, call by call. */
    asked,
    summaries: () => recorded.map((r) => r.change.summary),
    failRecording: () => (failRecording = true),
  };
}

/** The HTTP status an admin request would get for what the service threw. */
async function statusOf(work: Promise<unknown>): Promise<number> {
  const error = await work.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof HttpException)) throw new Error(`expected an HTTP error, got ${String(error)}`);
  return error.getStatus();
}

describe(AppsService.name, () => {
  describe('create', () => {
    it('stores the app, records who created it in the same transaction, then publishes the change', async () => {
      const { db, service, recorded, published } = setUp();

      const app = await service.create(
        { name: 'Notifiarr', slug: 'notifiarr', templateId: TEMPLATE_RADARR, active: true },
        'alice',
      );

      expect(app).toEqual({
        id: expect.any(String),
        name: 'Notifiarr',
        slug: 'notifiarr',
        templateId: TEMPLATE_RADARR,
        templateName: 'Radarr read-only',
        knownClientId: null,
        active: true,
        proxyCount: 0,
        createdAt: '2030-01-01T00:00:01.000Z',
        updatedAt: '2030-01-01T00:00:01.000Z',
      });
      expect(db.slugs()).toEqual(['notifiarr']);
      expect(recorded).toEqual([
        {
          manager: 'transaction',
          change: {
            actor: 'alice',
            action: 'app.created',
            objectType: 'app',
            objectId: app.id,
            objectName: 'Notifiarr',
            appId: app.id,
            summary: 'App "Notifiarr" (/proxy/notifiarr) created with template "Radarr read-only", active',
          },
        },
      ]);
      // The proxy's in-memory state is told only once the app is committed.
      expect(db.events).toEqual(['begin', 'commit', 'publish apps']);
      expect(published).toEqual([{ topic: 'apps', id: app.id }]);
    });

    it('says so when the app has no template and is inactive', async () => {
      const { service, summaries } = setUp();
      const app = await service.create({ name: 'Script', slug: 'script', templateId: null, active: false }, 'alice');
      expect([app.templateId, app.templateName, app.active]).toEqual([null, null, false]);
      expect(summaries()).toEqual(['App "Script" (/proxy/script) created with no template, inactive']);
    });

    it('answers 409 for a slug another app has, and stores, records and publishes nothing', async () => {
      const { db, service, recorded, published } = setUp();
      db.addApp({ name: 'Notifiarr', slug: 'notifiarr' });

      const error = await service
        .create({ name: 'Other', slug: 'notifiarr', templateId: null, active: true }, 'alice')
        .catch((e: unknown) => e);

      expect(error).toBeInstanceOf(ConflictException);
      expect((error as ConflictException).message).toBe('The slug "notifiarr" is already used by another app');
      expect(db.apps.size).toBe(1);
      expect(recorded).toEqual([]);
      expect(published).toEqual([]);
    });

    it('answers 400 for a template that does not exist, before storing anything', async () => {
      const { db, service, published } = setUp();
      const error = await service
        .create({ name: 'T', slug: 't', templateId: UNKNOWN, active: true }, 'alice')
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BadRequestException);
      expect((error as BadRequestException).getResponse()).toMatchObject({
        message: [`templateId ${UNKNOWN} is not a known template`],
      });
      expect(db.apps.size).toBe(0);
      expect(published).toEqual([]);
    });

    it('stores nothing when the change cannot be recorded: the app and its audit entry go together', async () => {
      const { db, service, published, failRecording } = setUp();
      failRecording();
      await expect(service.create({ name: 'N', slug: 'n', templateId: null, active: true }, 'alice')).rejects.toThrow(
        'could not record the change',
      );
      expect(db.apps.size).toBe(0);
      expect(db.events).toEqual(['begin', 'rollback']);
      expect(published).toEqual([]);
    });

    it('passes on other database failures as they are, not as a conflict', async () => {
      const { db, service } = setUp();
      const reset = new QueryFailedError(
        'INSERT INTO "app" …',
        [],
        Object.assign(new Error('reset'), { code: 'ECONNRESET' }),
      );
      db.failNextSave = reset;
      await expect(service.create({ name: 'N', slug: 'n', templateId: null, active: true }, 'alice')).rejects.toBe(
        reset,
      );
    });
  });

  describe('get', () => {
    it('answers each app with its number of proxies and its template name, asking about that app only', async () => {
      const { db, service, asked } = setUp();
      const notifiarr = db.addApp({ name: 'Notifiarr', slug: 'notifiarr', templateId: TEMPLATE_RADARR });
      const script = db.addApp({ name: 'Script', slug: 'script' });
      db.proxies.push(notifiarr.id, notifiarr.id, script.id);

      expect(await service.get(notifiarr.id)).toMatchObject({
        name: 'Notifiarr',
        proxyCount: 2,
        templateName: 'Radarr read-only',
      });
      expect(await service.get(script.id)).toMatchObject({ name: 'Script', proxyCount: 1, templateName: null });
      expect(asked).toEqual([[notifiarr.id], [TEMPLATE_RADARR], [script.id], []]);
    });

    it('answers 404 for an app that does not exist', async () => {
      const { service } = setUp();
      expect(await statusOf(service.get(UNKNOWN))).toBe(404);
      await expect(service.find(UNKNOWN)).rejects.toBeInstanceOf(NotFoundException);
    });
  });

  describe('update', () => {
    it('saves the fields given, keeps the others, and records what changed', async () => {
      const { db, service, recorded, published } = setUp();
      const app = db.addApp({ name: 'Notifiarr', slug: 'notifiarr', templateId: TEMPLATE_RADARR });

      const updated = await service.update(
        app.id,
        { name: 'Notifiarr 2', slug: 'notifiarr-2', templateId: TEMPLATE_SONARR, active: false },
        'bob',
      );

      expect(updated).toMatchObject({
        id: app.id,
        name: 'Notifiarr 2',
        slug: 'notifiarr-2',
        templateId: TEMPLATE_SONARR,
        templateName: 'Sonarr read-only',
        active: false,
      });
      expect(recorded).toEqual([
        {
          manager: 'transaction',
          change: {
            actor: 'bob',
            action: 'app.updated',
            objectType: 'app',
            objectId: app.id,
            objectName: 'Notifiarr 2',
            appId: app.id,
            summary:
              'App "Notifiarr 2": renamed "Notifiarr" → "Notifiarr 2", slug notifiarr → notifiarr-2, template "Sonarr read-only", deactivated',
          },
        },
      ]);
      expect(db.events).toEqual(['begin', 'commit', 'publish apps']);
      expect(published).toEqual([{ topic: 'apps', id: app.id }]);
    });

    it('changes only what is given', async () => {
      const { db, service, summaries } = setUp();
      const app = db.addApp({ name: 'Notifiarr', slug: 'notifiarr', templateId: TEMPLATE_RADARR, active: false });

      const updated = await service.update(app.id, { active: true }, 'bob');

      expect(updated).toMatchObject({
        name: 'Notifiarr',
        slug: 'notifiarr',
        templateId: TEMPLATE_RADARR,
        active: true,
      });
      expect(summaries()).toEqual(['App "Notifiarr": activated']);
    });

    it('removes the template with null, and says when nothing changed', async () => {
      const { db, service, summaries } = setUp();
      const app = db.addApp({ name: 'Notifiarr', slug: 'notifiarr', templateId: TEMPLATE_RADARR });

      expect(await service.update(app.id, { templateId: null }, 'bob')).toMatchObject({
        templateId: null,
        templateName: null,
      });
      await service.update(app.id, { name: 'Notifiarr' }, 'bob');

      expect(summaries()).toEqual(['App "Notifiarr": no template', 'App "Notifiarr": saved without changes']);
    });

    it('answers 409 for a slug another app has, and leaves the app as it was', async () => {
      const { db, service, published } = setUp();
      db.addApp({ name: 'Taken', slug: 'taken' });
      const app = db.addApp({ name: 'Mine', slug: 'mine' });

      expect(await statusOf(service.update(app.id, { name: 'Renamed', slug: 'taken' }, 'bob'))).toBe(409);

      expect(db.apps.get(app.id)).toMatchObject({ name: 'Mine', slug: 'mine' });
      expect(published).toEqual([]);
    });

    it('keeps its own slug without a conflict', async () => {
      const { db, service } = setUp();
      const app = db.addApp({ name: 'Mine', slug: 'mine' });
      await expect(service.update(app.id, { slug: 'mine', name: 'Still mine' }, 'bob')).resolves.toMatchObject({
        slug: 'mine',
      });
    });

    it('answers 404 for an app that does not exist, and 400 for an unknown template', async () => {
      const { db, service, recorded, published } = setUp();
      const app = db.addApp({ name: 'Mine', slug: 'mine' });

      expect(await statusOf(service.update(UNKNOWN, { name: 'X' }, 'bob'))).toBe(404);
      expect(await statusOf(service.update(app.id, { templateId: UNKNOWN }, 'bob'))).toBe(400);

      expect(db.apps.get(app.id)).toMatchObject({ name: 'Mine', templateId: null });
      expect(recorded).toEqual([]);
      expect(published).toEqual([]);
    });
  });

  describe('remove', () => {
    it('deletes the app, records it, and then publishes the change so that its keys stop working', async () => {
      const { db, service, recorded, published } = setUp();
      const app = db.addApp({ name: 'Notifiarr', slug: 'notifiarr' });
      const other = db.addApp({ name: 'Other', slug: 'other' });

      await service.remove(app.id, 'carol');

      expect(db.slugs()).toEqual(['other']);
      expect(db.apps.has(other.id)).toBe(true);
      expect(recorded).toEqual([
        {
          manager: 'transaction',
          change: {
            actor: 'carol',
            action: 'app.deleted',
            objectType: 'app',
            objectId: app.id,
            objectName: 'Notifiarr',
            appId: app.id,
            summary: 'App "Notifiarr" (/proxy/notifiarr) deleted with its proxies and keys',
          },
        },
      ]);
      expect(db.events).toEqual(['begin', 'commit', 'publish apps']);
      expect(published).toEqual([{ topic: 'apps', id: app.id }]);
    });

    it('answers 404 for an app that does not exist, deleting, recording and publishing nothing', async () => {
      const { db, service, recorded, published } = setUp();
      db.addApp({ name: 'Notifiarr', slug: 'notifiarr' });

      expect(await statusOf(service.remove(UNKNOWN, 'carol'))).toBe(404);

      expect(db.apps.size).toBe(1);
      expect(recorded).toEqual([]);
      expect(published).toEqual([]);
    });
  });
});
