import { Logger } from '@nestjs/common';
import type { AppHotPathRow, AppsService } from '@arrbiter/server/apps';
import type { AllowlistMap, CatalogRoute, CatalogService } from '@arrbiter/server/catalog';
import { AppConfig, TestClock } from '@arrbiter/server/config';
import { keyDigest, SecretBox } from '@arrbiter/server/crypto';
import { ChangeBus } from '@arrbiter/server/database';
import type { ProxiesService } from '@arrbiter/server/proxies';
import type { ProxyEntity } from '@arrbiter/server/proxies/entities';
import { SERVICE_KEY_PURPOSE, ServicesService } from '@arrbiter/server/services';
import type { ServiceEntity } from '@arrbiter/server/services/entities';
import type { TemplatesService } from '@arrbiter/server/templates';
import { ProxyRegistry } from './proxy-registry';

type Row = { id: string };

/**
 * A repository over rows held in memory, for the calls the registry makes: `find`, `findOneBy({ id })`
 * and `findBy({ appId })`. Every call is recorded; rows are copied out, as a database would.
 */
class FakeRepository<T extends Row> {
  /** When set, the next calls reject with it. */
  failure?: Error;
  /** When set, `findOneBy` waits for it before answering. */
  gate?: Promise<void>;

  constructor(
    public rows: T[],
    /** Where the calls are recorded, in order (shared by the fakes of one test). */
    private readonly calls: string[],
  ) {}

  async find(): Promise<T[]> {
    this.calls.push('find');
    this.fail();
    return this.rows.map((row) => structuredClone(row));
  }

  async findOneBy(where: { id: string }): Promise<T | null> {
    this.calls.push(`findOneBy ${where.id}`);
    await this.gate;
    this.fail();
    const row = this.rows.find((r) => r.id === where.id);
    return row ? structuredClone(row) : null;
  }

  async findBy(where: Partial<T>): Promise<T[]> {
    this.calls.push(`findBy ${JSON.stringify(where)}`);
    this.fail();
    const entries = Object.entries(where) as [keyof T, unknown][];
    return this.rows.filter((row) => entries.every(([k, v]) => row[k] === v)).map((row) => structuredClone(row));
  }

  update(id: string, change: Partial<T>): void {
    const row = this.rows.find((r) => r.id === id);
    if (!row) throw new Error(`no row ${id}`);
    Object.assign(row, change);
  }

  private fail(): void {
    if (this.failure) throw this.failure;
  }
}

const secrets = new SecretBox({ secretKey: Buffer.alloc(32, 7) } as AppConfig);

const RADARR_BLOCK: AllowlistMap = {
  '/api/v3/movie': ['get'],
  '/api/v3/movie/{id}': ['get', 'put'],
  '/api/v3/calendar': ['get'],
};
const SONARR_BLOCK: AllowlistMap = { '/api/v3/series': ['get'] };

const route = (path: string): CatalogRoute => ({ path, operations: { get: { integerParams: [], tags: [] } } });

function service(id: string, type: string, baseUrl: string, key: string): ServiceEntity {
  return {
    id,
    name: id,
    type,
    baseUrl,
    apiKeyCiphertext: secrets.encrypt(key, SERVICE_KEY_PURPOSE),
    apiVersions: ['v3'],
    upstreamVersion: '5.0.0',
  } as ServiceEntity;
}

function app(id: string, slug: string, templateId: string | null, active = true): AppHotPathRow {
  return { id, slug, templateId, active };
}

function proxy(
  id: string,
  appId: string,
  serviceId: string,
  key: string,
  overrides: AllowlistMap = {},
  extra: Partial<ProxyEntity> = {},
): ProxyEntity {
  return {
    id,
    appId,
    serviceId,
    keyDigest: keyDigest(key),
    keyCiphertext: 'not read',
    active: true,
    overrides,
    learningUntil: null,
    ...extra,
  } as ProxyEntity;
}

const P1_OVERRIDES: AllowlistMap = {
  // Another spelling of a template route: replaces its methods.
  '/API/v3/Movie/{movieId}': ['delete', 'get'],
  // Denies a template route.
  '/api/v3/calendar': [],
  // A path the catalog does not know.
  '/api/v3/custom/thing': ['post'],
};
const LEARNING_UNTIL = new Date('2030-01-02T03:04:05Z');

function setUp() {
  const calls: string[] = [];
  const apps = new FakeRepository<AppHotPathRow>(
    [app('app-1', 'notifiarr', 'tpl-1'), app('app-2', 'overseerr', null, false), app('app-3', 'second', 'tpl-1')],
    calls,
  );
  const proxies = new FakeRepository<ProxyEntity>(
    [
      proxy('p-1', 'app-1', 'svc-1', 'key-1', P1_OVERRIDES, { learningUntil: LEARNING_UNTIL }),
      proxy('p-2', 'app-1', 'svc-2', 'key-2', {}, { active: false }),
      proxy('p-3', 'app-2', 'svc-1', 'key-3', { '/api/v3/movie': ['get'] }),
      // The same grants as p-1, in an object of its own.
      proxy('p-4', 'app-3', 'svc-1', 'key-4', structuredClone(P1_OVERRIDES)),
      // Neither an app nor a service to belong to: left out.
      proxy('p-orphan', 'app-gone', 'svc-1', 'key-orphan'),
      proxy('p-noservice', 'app-3', 'svc-gone', 'key-noservice'),
    ],
    calls,
  );
  const services = new FakeRepository<ServiceEntity>(
    [
      service('svc-1', 'radarr', 'http://radarr.local:7878/radarr', 'radarr-upstream-key'),
      service('svc-2', 'sonarr', 'http://sonarr.local:8989', 'sonarr-upstream-key'),
    ],
    calls,
  );
  // The owners' services, over the same rows: every app or one; every proxy, one app's or one proxy;
  // every service.
  const appsService = {
    hotPathRows: (where: { id?: string } = {}) =>
      where.id !== undefined ? apps.findOneBy({ id: where.id }).then((row) => (row ? [row] : [])) : apps.find(),
  } as unknown as AppsService;
  const proxiesService = {
    hotPathRows: (where: { id?: string; appId?: string } = {}) =>
      where.id !== undefined
        ? proxies.findOneBy({ id: where.id }).then((row) => (row ? [row] : []))
        : where.appId !== undefined
          ? proxies.findBy({ appId: where.appId })
          : proxies.find(),
  } as unknown as ProxiesService;
  const servicesService = { all: () => services.find() } as unknown as ServicesService;

  // Like the real one, the catalog has its routes only once `ready()` has resolved.
  const catalogRoutes: Record<string, CatalogRoute[]> = {
    'radarr|v3': Object.keys(RADARR_BLOCK).map(route),
    'sonarr|v3': [route('/api/v3/series')],
  };
  let catalogLoaded = false;
  const catalog = {
    ready: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      catalogLoaded = true;
    },
    routesFor: (type: string, versions: readonly string[]) =>
      catalogLoaded ? versions.flatMap((v) => catalogRoutes[`${type}|${v}`] ?? []) : [],
  } as unknown as CatalogService;

  const blocks = new Map<string, Record<string, AllowlistMap>>([
    ['tpl-1', { radarr: structuredClone(RADARR_BLOCK), sonarr: structuredClone(SONARR_BLOCK) }],
  ]);
  const templates = {
    allBlocks: async () => {
      calls.push('allBlocks');
      return structuredClone(blocks);
    },
  } as unknown as TemplatesService;

  const changes = new ChangeBus();
  const clock = new TestClock();
  const registry = new ProxyRegistry(
    appsService,
    proxiesService,
    servicesService,
    catalog,
    templates,
    secrets,
    clock,
    changes,
  );
  const clearCalls = () => void (calls.length = 0);
  const allCalls = () => [...calls];
  return { registry, changes, clock, apps, proxies, services, catalogRoutes, blocks, clearCalls, allCalls };
}

async function loaded() {
  const setup = setUp();
  await setup.registry.onApplicationBootstrap();
  setup.clearCalls();
  return setup;
}

const digest = keyDigest;

describe(ProxyRegistry.name, () => {
  let errors: jest.SpyInstance;

  beforeEach(() => {
    jest.spyOn(Logger.prototype, 'log').mockImplementation(() => undefined);
    errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });

  afterEach(() => jest.restoreAllMocks());

  describe('a full load', () => {
    it('holds nothing before the application bootstraps', () => {
      const { registry } = setUp();
      expect(registry.app('notifiarr')).toBeUndefined();
      expect(registry.isUpstreamKey(digest('radarr-upstream-key'))).toBe(false);
    });

    it('builds apps by slug, their proxies by key digest and the services they forward to', async () => {
      const { registry } = await loaded();
      const notifiarr = registry.app('notifiarr');
      expect(notifiarr).toMatchObject({ id: 'app-1', slug: 'notifiarr', active: true, templateId: 'tpl-1' });
      expect([...(notifiarr?.proxies.keys() ?? [])].sort()).toEqual([digest('key-1'), digest('key-2')].sort());

      const p1 = notifiarr?.proxies.get(digest('key-1'));
      expect(p1).toMatchObject({
        id: 'p-1',
        appId: 'app-1',
        appSlug: 'notifiarr',
        keyDigest: digest('key-1'),
        active: true,
        learningUntil: LEARNING_UNTIL.getTime(),
      });
      expect(p1?.service).toMatchObject({
        id: 'svc-1',
        type: 'radarr',
        origin: 'http://radarr.local:7878',
        basePath: '/radarr',
        upstreamKey: 'radarr-upstream-key',
      });
      expect(p1?.service.catalog.hasShape('/api/v3/movie/{}')).toBe(true);

      const p2 = notifiarr?.proxies.get(digest('key-2'));
      expect(p2).toMatchObject({ id: 'p-2', active: false, learningUntil: 0 });
      expect(p2?.service).toMatchObject({ type: 'sonarr', origin: 'http://sonarr.local:8989', basePath: '' });

      // Proxies of one service share its state.
      expect(registry.app('overseerr')?.proxies.get(digest('key-3'))?.service).toBe(p1?.service);
    });

    it('keeps inactive apps and proxies, marked inactive, and leaves out proxies without an app or service', async () => {
      const { registry } = await loaded();
      expect(registry.app('overseerr')).toMatchObject({ id: 'app-2', active: false, templateId: null });
      expect(registry.app('overseerr')?.proxies.get(digest('key-3'))).toMatchObject({ id: 'p-3', active: true });
      expect(registry.app('notifiarr')?.proxies.get(digest('key-2'))?.active).toBe(false);
      expect([...(registry.app('second')?.proxies.keys() ?? [])]).toEqual([digest('key-4')]);
      expect(registry.app('app-gone')).toBeUndefined();
      expect(registry.app('unknown')).toBeUndefined();
      // Slugs, not ids, name apps.
      expect(registry.app('app-1')).toBeUndefined();
    });

    it("recognises the digests of the upstreams' own keys, and only those", async () => {
      const { registry } = await loaded();
      expect(registry.isUpstreamKey(digest('radarr-upstream-key'))).toBe(true);
      expect(registry.isUpstreamKey(digest('sonarr-upstream-key'))).toBe(true);
      expect(registry.isUpstreamKey(digest('key-1'))).toBe(false);
      expect(registry.isUpstreamKey('radarr-upstream-key')).toBe(false);
    });

    it("compiles each allowlist from the app's template block for the service's type and the proxy's overrides", async () => {
      const { registry } = await loaded();
      const p1 = registry.app('notifiarr')?.proxies.get(digest('key-1'));
      expect(p1?.allowlist.effective).toEqual({
        '/api/v3/movie': ['get'],
        '/API/v3/Movie/{movieId}': ['delete', 'get'],
        '/api/v3/custom/thing': ['post'],
      });
      expect(p1?.allowlist.allows('/api/v3/movie/{}', 'delete')).toBe(true);
      expect(p1?.allowlist.allows('/api/v3/movie/{}', 'put')).toBe(false);
      expect(p1?.allowlist.allows('/api/v3/calendar', 'get')).toBe(false);
      // Only the path the catalog does not know becomes a route of its own.
      expect(p1?.extraRoutes?.size).toBe(1);
      expect(p1?.extraRoutes?.hasShape('/api/v3/custom/thing')).toBe(true);

      // The sonarr block of the same template for a sonarr proxy.
      const p2 = registry.app('notifiarr')?.proxies.get(digest('key-2'));
      expect(p2?.allowlist.effective).toEqual(SONARR_BLOCK);
      expect(p2?.extraRoutes).toBeUndefined();

      // No template: the overrides alone.
      const p3 = registry.app('overseerr')?.proxies.get(digest('key-3'));
      expect(p3?.allowlist.effective).toEqual({ '/api/v3/movie': ['get'] });
      expect(p3?.extraRoutes).toBeUndefined();
    });

    it('compiles the same grants on the same service once, for every proxy that has them', async () => {
      const { registry } = await loaded();
      const p1 = registry.app('notifiarr')?.proxies.get(digest('key-1'));
      const p4 = registry.app('second')?.proxies.get(digest('key-4'));
      expect(p4?.allowlist).toBe(p1?.allowlist);
      expect(p4?.extraRoutes).toBe(p1?.extraRoutes);
      expect(registry.app('overseerr')?.proxies.get(digest('key-3'))?.allowlist).not.toBe(p1?.allowlist);
    });
  });

  describe('a change to one proxy', () => {
    it('reloads only that proxy', async () => {
      const { registry, changes, proxies, allCalls } = await loaded();
      const notifiarr = registry.app('notifiarr');
      const p2 = notifiarr?.proxies.get(digest('key-2'));
      const p4 = registry.app('second')?.proxies.get(digest('key-4'));
      proxies.update('p-1', {
        keyDigest: digest('key-1-rotated'),
        active: false,
        overrides: { '/api/v3/calendar': ['get', 'head'] },
        learningUntil: null,
      });

      await changes.publish('proxies', 'p-1');

      expect(allCalls()).toEqual(['findOneBy p-1']);
      expect(registry.app('notifiarr')).toBe(notifiarr);
      expect(notifiarr?.proxies.has(digest('key-1'))).toBe(false);
      const p1 = notifiarr?.proxies.get(digest('key-1-rotated'));
      expect(p1).toMatchObject({ id: 'p-1', active: false, learningUntil: 0, appSlug: 'notifiarr' });
      expect(p1?.allowlist.effective).toEqual({
        '/api/v3/movie': ['get'],
        '/api/v3/movie/{id}': ['get', 'put'],
        '/api/v3/calendar': ['get', 'head'],
      });
      expect(p1?.extraRoutes).toBeUndefined();
      // The others are untouched.
      expect(notifiarr?.proxies.get(digest('key-2'))).toBe(p2);
      expect(registry.app('second')?.proxies.get(digest('key-4'))).toBe(p4);
    });

    it('removes a deleted proxy, and again once it was added back and deleted', async () => {
      const { registry, changes, proxies } = await loaded();
      proxies.rows = proxies.rows.filter((row) => row.id !== 'p-1');
      await changes.publish('proxies', 'p-1');
      expect(registry.app('notifiarr')?.proxies.has(digest('key-1'))).toBe(false);
      expect(registry.app('notifiarr')?.proxies.has(digest('key-2'))).toBe(true);

      proxies.rows.push(proxy('p-1', 'app-1', 'svc-1', 'key-1-again'));
      await changes.publish('proxies', 'p-1');
      proxies.rows = proxies.rows.filter((row) => row.id !== 'p-1');
      await changes.publish('proxies', 'p-1');
      expect(registry.app('notifiarr')?.proxies.has(digest('key-1-again'))).toBe(false);
    });

    it("indexes a rotated proxy's previous key while its grace period runs, and drops it on the next change", async () => {
      const { registry, changes, clock, proxies } = await loaded();
      const validUntil = new Date(clock.now() + 60_000);
      proxies.update('p-3', {
        keyDigest: digest('key-3-new'),
        previousKeyDigest: digest('key-3'),
        previousKeyValidUntil: validUntil,
      });
      await changes.publish('proxies', 'p-3');
      const overseerr = registry.app('overseerr');
      const p3 = overseerr?.proxies.get(digest('key-3-new'));
      expect(p3?.previousKey).toEqual({ digest: digest('key-3'), validUntil: validUntil.getTime() });
      expect(overseerr?.previousKeys.get(digest('key-3'))).toBe(p3);
      expect(overseerr?.proxies.has(digest('key-3'))).toBe(false);

      // The grace period ended (or was ended): the next change of the proxy removes it.
      proxies.update('p-3', { previousKeyDigest: null, previousKeyValidUntil: null });
      await changes.publish('proxies', 'p-3');
      expect(overseerr?.previousKeys.size).toBe(0);
      expect(overseerr?.proxies.get(digest('key-3-new'))?.previousKey).toBeNull();

      // One already over when the state is built is left out.
      proxies.update('p-3', { previousKeyDigest: digest('key-3'), previousKeyValidUntil: validUntil });
      clock.advance(60_000);
      await changes.publish('proxies', 'p-3');
      expect(overseerr?.previousKeys.size).toBe(0);
    });

    it('adds a new proxy to its app', async () => {
      const { registry, changes, proxies } = await loaded();
      proxies.rows.push(proxy('p-new', 'app-2', 'svc-2', 'key-new', { '/api/v3/series/{id}': ['get'] }));
      await changes.publish('proxies', 'p-new');
      const added = registry.app('overseerr')?.proxies.get(digest('key-new'));
      expect(added).toMatchObject({ id: 'p-new', appSlug: 'overseerr', active: true });
      expect(added?.service.type).toBe('sonarr');
      expect(added?.allowlist.effective).toEqual({ '/api/v3/series/{id}': ['get'] });
      expect(added?.extraRoutes?.hasShape('/api/v3/series/{}')).toBe(true);
    });
  });

  describe('a change to one app', () => {
    it('reloads that app and its proxies only', async () => {
      const { registry, changes, apps, allCalls } = await loaded();
      const overseerr = registry.app('overseerr');
      const second = registry.app('second');
      apps.update('app-1', { slug: 'notifiarr-2', active: false, templateId: null });

      await changes.publish('apps', 'app-1');

      expect(allCalls().sort()).toEqual(['findBy {"appId":"app-1"}', 'findOneBy app-1']);
      expect(registry.app('notifiarr')).toBeUndefined();
      const renamed = registry.app('notifiarr-2');
      expect(renamed).toMatchObject({ id: 'app-1', active: false, templateId: null });
      expect([...(renamed?.proxies.keys() ?? [])].sort()).toEqual([digest('key-1'), digest('key-2')].sort());
      const p1 = renamed?.proxies.get(digest('key-1'));
      expect(p1?.appSlug).toBe('notifiarr-2');
      // Without the template, the overrides alone.
      expect(p1?.allowlist.effective).toEqual({
        '/API/v3/Movie/{movieId}': ['delete', 'get'],
        '/api/v3/custom/thing': ['post'],
      });
      expect(registry.app('overseerr')).toBe(overseerr);
      expect(registry.app('second')).toBe(second);
    });

    it("applies a newly chosen template to the app's proxies", async () => {
      const { registry, changes, apps } = await loaded();
      apps.update('app-2', { templateId: 'tpl-1' });
      await changes.publish('apps', 'app-2');
      expect(registry.app('overseerr')?.proxies.get(digest('key-3'))?.allowlist.effective).toEqual(RADARR_BLOCK);
    });

    it('removes a deleted app with its proxies', async () => {
      const { registry, changes, apps, proxies } = await loaded();
      apps.rows = apps.rows.filter((row) => row.id !== 'app-1');
      proxies.rows = proxies.rows.filter((row) => row.appId !== 'app-1');
      await changes.publish('apps', 'app-1');
      expect(registry.app('notifiarr')).toBeUndefined();
      expect(registry.app('overseerr')).toBeDefined();
    });
  });

  describe('a change to services, catalogs or templates', () => {
    it.each(['services', 'catalog', 'templates', 'apps', 'proxies'] as const)(
      'rebuilds everything on a %s change without an id',
      async (topic) => {
        const { registry, changes, allCalls } = await loaded();
        const before = registry.app('notifiarr');
        await changes.publish(topic);
        expect(allCalls().filter((call) => call === 'find')).toHaveLength(3);
        expect(allCalls()).toContain('allBlocks');
        expect(registry.app('notifiarr')).not.toBe(before);
        expect(registry.app('notifiarr')?.proxies.size).toBe(2);
      },
    );

    it("forwards to a service's new address with its new key, and forgets the old key", async () => {
      const { registry, changes, services } = await loaded();
      const revision = registry.app('notifiarr')?.proxies.get(digest('key-1'))?.service.revision;
      services.rows[0] = service('svc-1', 'radarr', 'https://radarr.example/movies/', 'radarr-key-2');
      await changes.publish('services');
      const state = registry.app('notifiarr')?.proxies.get(digest('key-1'))?.service;
      expect(state).toMatchObject({
        origin: 'https://radarr.example',
        basePath: '/movies',
        upstreamKey: 'radarr-key-2',
      });
      expect(state?.revision).not.toBe(revision);
      expect(registry.isUpstreamKey(digest('radarr-key-2'))).toBe(true);
      expect(registry.isUpstreamKey(digest('radarr-upstream-key'))).toBe(false);
    });

    it("recompiles allowlists from a template's new blocks", async () => {
      const { registry, changes, blocks } = await loaded();
      const tpl = blocks.get('tpl-1') as Record<string, AllowlistMap>;
      tpl['radarr'] = { ...tpl['radarr'], '/api/v3/queue': ['get'] };
      await changes.publish('templates');
      const p1 = registry.app('notifiarr')?.proxies.get(digest('key-1'));
      expect(p1?.allowlist.effective).toMatchObject({ '/api/v3/queue': ['get'] });
      expect(p1?.extraRoutes?.hasShape('/api/v3/queue')).toBe(true);
    });

    it('resolves allowlist paths against a new catalog', async () => {
      const { registry, changes, catalogRoutes } = await loaded();
      catalogRoutes['radarr|v3'] = [...(catalogRoutes['radarr|v3'] ?? []), route('/api/v3/custom/thing')];
      await changes.publish('catalog');
      const p1 = registry.app('notifiarr')?.proxies.get(digest('key-1'));
      expect(p1?.service.catalog.hasShape('/api/v3/custom/thing')).toBe(true);
      expect(p1?.extraRoutes).toBeUndefined();
    });
  });

  describe('failures and ordering', () => {
    it('keeps the previous state when a full load fails, logs it, and loads again on the next change', async () => {
      const { registry, changes, services } = await loaded();
      const before = registry.app('notifiarr');
      services.failure = new Error('connection lost');
      await expect(changes.publish('services')).resolves.toBeUndefined();
      expect(registry.app('notifiarr')).toBe(before);
      expect(registry.isUpstreamKey(digest('radarr-upstream-key'))).toBe(true);
      expect(errors).toHaveBeenCalledWith(expect.stringContaining('connection lost'));

      // An upstream key that no longer decrypts (SECRET_KEY changed) fails the load the same way.
      services.failure = undefined;
      services.rows[1] = { ...(services.rows[1] as ServiceEntity), apiKeyCiphertext: 'v1.garbage.x.y' };
      await changes.publish('services');
      expect(registry.app('notifiarr')).toBe(before);

      services.rows[1] = service('svc-2', 'sonarr', 'http://sonarr.local:8989', 'sonarr-key-2');
      await changes.publish('services');
      expect(registry.app('notifiarr')).not.toBe(before);
      expect(registry.isUpstreamKey(digest('sonarr-key-2'))).toBe(true);
    });

    it('keeps the previous state when reloading one proxy fails', async () => {
      const { registry, changes, proxies } = await loaded();
      const p1 = registry.app('notifiarr')?.proxies.get(digest('key-1'));
      proxies.update('p-1', { keyDigest: digest('key-1-rotated') });
      proxies.failure = new Error('read failed');
      await changes.publish('proxies', 'p-1');
      expect(registry.app('notifiarr')?.proxies.get(digest('key-1'))).toBe(p1);
      expect(errors).toHaveBeenCalledWith(expect.stringContaining('read failed'));

      proxies.failure = undefined;
      await changes.publish('proxies', 'p-1');
      expect(registry.app('notifiarr')?.proxies.has(digest('key-1'))).toBe(false);
      expect(registry.app('notifiarr')?.proxies.has(digest('key-1-rotated'))).toBe(true);
    });

    it('applies changes one at a time, in the order they came', async () => {
      const { registry, changes, proxies, allCalls } = await loaded();
      let release = () => undefined as void;
      proxies.gate = new Promise<void>((resolve) => (release = resolve));
      proxies.update('p-1', { keyDigest: digest('key-1-rotated') });
      const first = changes.publish('proxies', 'p-1');
      const second = changes.publish('proxies', 'p-2');
      const third = changes.publish('services');
      await new Promise((resolve) => setImmediate(resolve));
      expect(allCalls()).toEqual(['findOneBy p-1']);

      proxies.gate = undefined;
      release();
      await Promise.all([first, second, third]);
      expect(allCalls().slice(0, 2)).toEqual(['findOneBy p-1', 'findOneBy p-2']);
      expect(allCalls()).toContain('allBlocks');
      expect(registry.app('notifiarr')?.proxies.has(digest('key-1-rotated'))).toBe(true);
    });

    it('stops listening for changes when the module is destroyed', async () => {
      const { registry, changes, apps, allCalls } = await loaded();
      registry.onModuleDestroy();
      apps.update('app-1', { slug: 'renamed' });
      await changes.publish('apps', 'app-1');
      await changes.publish('services');
      expect(allCalls()).toEqual([]);
      expect(registry.app('notifiarr')).toBeDefined();
    });
  });
});
