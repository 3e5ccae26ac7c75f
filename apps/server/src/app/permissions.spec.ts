import type {
  AllowlistMap,
  AllowlistResponse,
  ApiError,
  AppDto,
  ChangeDto,
  EndpointsResponse,
  LearnedGrantResponse,
  Page,
  ProxyDto,
  RevisionDiffResponse,
  RevisionDto,
  ServiceDto,
  TemplateDto,
  WarningDto,
  WarningGrantResponse,
} from '@arrbiter/contracts';
import { LearningDeadlines } from '@arrbiter/server/proxies';
import { TemplatesService } from '@arrbiter/server/templates';
import { WarningRecorder } from '@arrbiter/server/warnings';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { rawRequest } from '../testing/raw-http';
import { AdminClient, found, startTestApp, TEST_ADMIN, TestApp } from '../testing/test-app';
import { seedProxy, seedService } from '@arrbiter/server/testing';

/** The templates a repository would hold, by name then service type. */
type Templates = Record<string, Record<string, AllowlistMap>>;

const DASHBOARD: Templates = {
  dashboard: {
    radarr: {
      '/api/v3/movie': ['get'],
      '/api/v3/movie/{id}': ['get'],
      '/api/v3/calendar': ['get'],
    },
    sonarr: { '/api/v3/series': ['get'] },
  },
};

/**
 * A Sonarr v5-shaped description (the names v5 uses where v3 had `config/host` and `notification`), with
 * `$ref`/`allOf` schemas as Servarr publishes them, and one route of a made-up future name whose only
 * mark is a secret field in its schema.
 */
const json = (schema: string) => ({
  content: { 'application/json': { schema: { $ref: `#/components/schemas/${schema}` } } },
});
const reads = (tag: string, schema: string) => ({
  tags: [tag],
  responses: { '200': { description: 'OK', ...json(schema) } },
});
const writes = (tag: string, schema: string) => ({ ...reads(tag, schema), requestBody: json(schema) });
const idParam = { name: 'id', in: 'path', required: true, schema: { type: 'integer', format: 'int32' } };
const SONARR_V5 = {
  openapi: '3.0.4',
  info: { title: 'Sonarr', version: '5.0.0' },
  paths: {
    '/api/v5/series': { get: reads('Series', 'SeriesList'), post: writes('Series', 'SeriesResource') },
    '/api/v5/series/{id}': { parameters: [idParam], get: reads('Series', 'SeriesResource') },
    '/api/v5/settings/general': { get: reads('GeneralSettings', 'GeneralSettingsResource') },
    '/api/v5/settings/general/{id}': {
      parameters: [idParam],
      put: writes('GeneralSettings', 'GeneralSettingsResource'),
    },
    '/api/v5/settings/update': { get: reads('UpdateSettings', 'UpdateSettingsResource') },
    '/api/v5/settings/update/{id}': { parameters: [idParam], put: writes('UpdateSettings', 'UpdateSettingsResource') },
    '/api/v5/settings/ui': { get: reads('UiSettings', 'UiSettingsResource') },
    '/api/v5/settings/security': { get: reads('SecuritySettings', 'SecuritySettingsResource') },
    '/api/v5/connection': {
      get: reads('Connection', 'ConnectionList'),
      post: writes('Connection', 'ConnectionResource'),
    },
    '/api/v5/connection/{id}': { parameters: [idParam], get: reads('Connection', 'ConnectionResource') },
  },
  components: {
    schemas: {
      SeriesResource: { type: 'object', properties: { id: { type: 'integer' }, title: { type: 'string' } } },
      SeriesList: { type: 'array', items: { $ref: '#/components/schemas/SeriesResource' } },
      GeneralSettingsResource: {
        type: 'object',
        properties: { port: { type: 'integer' }, apiKey: { type: 'string' }, proxyPassword: { type: 'string' } },
      },
      UpdateSettingsResource: { type: 'object', properties: { updateScriptPath: { type: 'string', nullable: true } } },
      UiSettingsResource: { type: 'object', properties: { theme: { type: 'string' } } },
      SecuritySettingsResource: {
        allOf: [
          { $ref: '#/components/schemas/UiSettingsResource' },
          { properties: { certificate: { $ref: '#/components/schemas/Certificate' } } },
        ],
      },
      Certificate: { type: 'object', properties: { path: { type: 'string' }, PassPhrase: { type: 'string' } } },
      Field: { type: 'object', properties: { name: { type: 'string' }, value: {} } },
      ConnectionResource: {
        type: 'object',
        properties: {
          name: { type: 'string' },
          fields: { type: 'array', items: { $ref: '#/components/schemas/Field' } },
        },
      },
      ConnectionList: { type: 'array', items: { $ref: '#/components/schemas/ConnectionResource' } },
    },
  },
};

/** A route's risk when granting it hands out no secret, controls nothing and deletes nothing. */
const HARMLESS = { sensitive: false, destructive: false };

describe('permissions: templates, overrides, revisions, warnings, recent changes, learning mode', () => {
  let t: TestApp;
  let admin: AdminClient;
  let upstream: FakeServarr;
  let base: string;
  let service: ServiceDto;

  const setTemplates = async (templates: Templates) => {
    const store = t.app.get(TemplatesService);
    await store.upsertRepositoryTemplates(new Map(Object.entries(templates)));
    await store.published();
  };
  const templateId = async (name: string) =>
    found(
      ((await admin.get('/api/admin/v1/templates').expect(200)).body as TemplateDto[]).find((x) => x.name === name),
      name,
    ).id;
  const newApp = async (slug: string, template: string | null) => {
    const { app, proxy } = await seedProxy(admin, {
      service,
      app: { name: `App ${slug}`, slug, templateId: template === null ? null : await templateId(template) },
    });
    return { app, proxy };
  };
  const allowlist = async (proxyId: string) =>
    (await admin.get(`/api/admin/v1/proxies/${proxyId}/allowlist`).expect(200)).body as AllowlistResponse;
  const save = (proxyId: string, overrides: AllowlistMap, active = true) =>
    admin.put(`/api/admin/v1/proxies/${proxyId}/config`, { overrides, active }).expect(200);
  const proxyOf = async (proxyId: string) =>
    (await admin.get(`/api/admin/v1/proxies/${proxyId}`).expect(200)).body as ProxyDto;
  const revisions = async (proxyId: string) =>
    ((await admin.get(`/api/admin/v1/proxies/${proxyId}/revisions`).expect(200)).body as Page<RevisionDto>).items;
  const call = (slug: string, key: string, method: string, path: string) =>
    rawRequest(base, method, `/proxy/${slug}${path}`, { 'x-api-key': key });
  const warningsOf = async (proxyId: string) => {
    await t.app.get(WarningRecorder).flush();
    return ((await admin.get(`/api/admin/v1/warnings?proxyId=${proxyId}`).expect(200)).body as Page<WarningDto>).items;
  };
  const changes = async (query = '') =>
    ((await admin.get(`/api/admin/v1/changes?limit=200${query}`).expect(200)).body as Page<ChangeDto>).items;

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none' });
    admin = await t.admin();
    base = await t.listen();
    upstream = await FakeServarr.start({ type: 'radarr' });
    service = await seedService(admin, upstream);
    await setTemplates(DASHBOARD);
  });
  afterAll(async () => {
    await upstream.stop();
    await t.close();
  });

  describe('templates', () => {
    it('lists templates with their blocks, grant counts and apps', async () => {
      const { app } = await newApp('templates-listed', 'dashboard');
      const list = (await admin.get('/api/admin/v1/templates').expect(200)).body as TemplateDto[];
      const dashboard = found(
        list.find((x) => x.name === 'dashboard'),
        'dashboard',
      );
      expect(dashboard).toMatchObject({
        source: 'repository',
        removed: false,
        grantCounts: { radarr: 3, sonarr: 1 },
        blocks: DASHBOARD['dashboard'],
      });
      expect(dashboard.appCount).toBeGreaterThanOrEqual(1);
      await admin.get(`/api/admin/v1/templates/${dashboard.id}`).expect(200, dashboard);
      await admin.get('/api/admin/v1/templates/00000000-0000-4000-8000-000000000000').expect(404);
      expect(((await admin.get(`/api/admin/v1/apps/${app.id}`).expect(200)).body as AppDto).templateName).toBe(
        'dashboard',
      );
    });

    it('refuses an app with a template that does not exist, storing nothing', async () => {
      const response = await admin
        .post('/api/admin/v1/apps', {
          name: 'Ghost',
          slug: 'ghost',
          templateId: '00000000-0000-4000-8000-000000000000',
          active: true,
        })
        .expect(400);
      expect(JSON.stringify(response.body)).toContain('is not a known template');
      const apps = (await admin.get('/api/admin/v1/apps?q=ghost').expect(200)).body as Page<AppDto>;
      expect(apps.items).toEqual([]);
    });
  });

  describe('the override rules of the specification', () => {
    it('an app with no template and no grants has an empty allowlist', async () => {
      const { proxy } = await newApp('empty', null);
      expect(await allowlist(proxy.id)).toEqual({ template: {}, overrides: {}, effective: {} });
      expect((await call('empty', proxy.key, 'GET', '/api/v3/movie')).status).toBe(403);
    });

    it('inherits the template block for the service type, and the proxy enforces it', async () => {
      const { proxy } = await newApp('inherits', 'dashboard');
      const list = await allowlist(proxy.id);
      expect(list.template).toEqual(DASHBOARD['dashboard']['radarr']);
      expect(list.effective).toEqual(DASHBOARD['dashboard']['radarr']);
      expect((await call('inherits', proxy.key, 'GET', '/api/v3/movie/7')).status).toBe(200);
      expect((await call('inherits', proxy.key, 'DELETE', '/api/v3/movie/7')).status).toBe(403);
    });

    it('an override replaces the path’s methods (not merged), [] denies, removing it inherits again, clearing returns exactly the template', async () => {
      const { proxy } = await newApp('overrides', 'dashboard');
      const key = proxy.key;

      // Replace, not merge: the template's GET on /movie/{id} is gone once the override lists only DELETE.
      await save(proxy.id, { '/api/v3/movie/{id}': ['delete'] });
      expect((await allowlist(proxy.id)).effective['/api/v3/movie/{id}']).toEqual(['delete']);
      expect((await call('overrides', key, 'GET', '/api/v3/movie/1')).status).toBe(403);
      expect((await call('overrides', key, 'DELETE', '/api/v3/movie/1')).status).toBe(200);

      // [] denies the path.
      await save(proxy.id, { '/api/v3/calendar': [] });
      expect((await allowlist(proxy.id)).effective['/api/v3/calendar']).toBeUndefined();
      expect((await call('overrides', key, 'GET', '/api/v3/calendar')).status).toBe(403);
      // …while the other template paths are still inherited.
      expect((await call('overrides', key, 'GET', '/api/v3/movie/1')).status).toBe(200);

      // Removing an override inherits again (it does not deny).
      await save(proxy.id, { '/api/v3/movie/lookup': ['get'] });
      expect((await call('overrides', key, 'GET', '/api/v3/calendar')).status).toBe(200);

      // Clearing every override returns exactly the template.
      await save(proxy.id, {});
      expect((await allowlist(proxy.id)).effective).toEqual(DASHBOARD['dashboard']['radarr']);
      expect((await call('overrides', key, 'GET', '/api/v3/movie/lookup')).status).toBe(403);
    });

    it('refuses an override key that is not a path, __proto__ included as raw JSON sends it, and changes nothing', async () => {
      const { proxy } = await newApp('not-a-path', 'dashboard');
      await save(proxy.id, { '/api/v3/calendar': [] });
      const before = { proxy: await proxyOf(proxy.id), allowlist: await allowlist(proxy.id) };
      const history = await revisions(proxy.id);
      const cookie = await t.signIn();
      for (const key of ['__proto__', 'constructor', 'prototype', 'api/v3/movie']) {
        // The raw text: an object literal (or a spread) would lose the own `__proto__` key before sending.
        const response = await t.http
          .put(`/api/admin/v1/proxies/${proxy.id}/config`)
          .set('Cookie', cookie)
          .set('Origin', t.config.publicOrigin)
          .set('Content-Type', 'application/json')
          .send(`{"overrides":{"${key}":["get"]},"active":false}`);
        expect({ key, status: response.status, message: (response.body as ApiError).message }).toEqual({
          key,
          status: 400,
          // The reserved keys are refused as the body is parsed, before validation; the rest by validation.
          message: key.startsWith('api/')
            ? [`overrides: "${key}" is not an API path (absolute, segments literal or {param}, no query)`]
            : `The body uses the reserved key "${key}" in overrides`,
        });
      }
      expect({ proxy: await proxyOf(proxy.id), allowlist: await allowlist(proxy.id) }).toEqual(before);
      expect(await revisions(proxy.id)).toEqual(history);
    });

    it('refuses an override path whose parameters have no literal text between them, with the reason', async () => {
      const { proxy } = await newApp('adjacent-params', 'dashboard');
      const response = await admin
        .put(`/api/admin/v1/proxies/${proxy.id}/config`, {
          overrides: { '/api/v3/x{a}{b}{c}{d}{e}{f}{g}y': ['get'] },
          active: true,
        })
        .expect(400);
      expect((response.body as ApiError).message).toEqual([
        'overrides: "/api/v3/x{a}{b}{c}{d}{e}{f}{g}y": segment "x{a}{b}{c}{d}{e}{f}{g}y" has parameters with no literal text between them ({a}{b}): separate them, e.g. {a}-{b}',
      ]);
      expect((await allowlist(proxy.id)).overrides).toEqual({});
    });
  });

  describe('the permission catalog', () => {
    it('lists each catalog route with template, override and effective per method, and flags unknown paths', async () => {
      const { proxy } = await newApp('catalog', 'dashboard');
      await save(proxy.id, { '/api/v3/movie/{id}': ['delete', 'get'], '/api/v3/custom/report': ['get'] });
      const endpoints = (await admin.get(`/api/admin/v1/proxies/${proxy.id}/endpoints`).expect(200))
        .body as EndpointsResponse;
      expect(endpoints.serviceType).toBe('radarr');
      expect(endpoints.tags).toContain('Movie');
      const byId = found(
        endpoints.items.find((e) => e.path === '/api/v3/movie/{id}'),
        'movie by id',
      );
      expect(byId).toMatchObject({ inCatalog: true, sensitive: false, override: ['get', 'delete'], tags: ['Movie'] });
      expect(byId.methods).toEqual([
        { method: 'get', template: true, override: true, effective: true, risk: expect.objectContaining(HARMLESS) },
        { method: 'put', template: false, override: false, effective: false, risk: expect.objectContaining(HARMLESS) },
        {
          method: 'delete',
          template: false,
          override: true,
          effective: true,
          risk: expect.objectContaining({ sensitive: false, destructive: true }),
        },
      ]);
      const calendar = found(
        endpoints.items.find((e) => e.path === '/api/v3/calendar'),
        'calendar',
      );
      expect(calendar.override).toBeNull();
      expect(calendar.methods).toEqual([
        { method: 'get', template: true, override: null, effective: true, risk: expect.objectContaining(HARMLESS) },
      ]);
      const host = endpoints.items.find((e) => e.path === '/api/v3/config/host');
      expect(host?.sensitive).toBe(true);
      expect(host?.methods.find((m) => m.method === 'get')?.risk).toMatchObject({ sensitive: true });
      expect(endpoints.items.find((e) => e.path === '/api/v3/custom/report')).toMatchObject({
        inCatalog: false,
        methods: [{ method: 'get', template: false, override: true, effective: true }],
      });

      const searched = (await admin.get(`/api/admin/v1/proxies/${proxy.id}/endpoints?search=MOVIE/%7Bid`).expect(200))
        .body as EndpointsResponse;
      expect(searched.items.map((e) => e.path)).toEqual(['/api/v3/movie/{id}', '/api/v3/movie/{id}/file']);
      const tagged = (await admin.get(`/api/admin/v1/proxies/${proxy.id}/endpoints?tag=calendar`).expect(200))
        .body as EndpointsResponse;
      expect(tagged.items.map((e) => e.path)).toEqual(['/api/v3/calendar']);
    });
  });

  describe('revisions and restore', () => {
    it('records each change with kind, author and the added and removed effective grants', async () => {
      const { proxy } = await newApp('revised', 'dashboard');
      await save(proxy.id, { '/api/v3/movie/{id}': ['delete'], '/api/v3/command': ['post'] });
      await admin.patch(`/api/admin/v1/proxies/${proxy.id}`, { active: false }).expect(200);
      const [deactivated, saved, created] = await revisions(proxy.id);
      expect(created).toMatchObject({ kind: 'created', author: TEST_ADMIN.username, overrides: {}, active: true });
      expect(created.summary.added).toHaveLength(3);
      expect(saved).toMatchObject({ kind: 'manual', author: TEST_ADMIN.username, active: true });
      expect(saved.summary).toEqual({
        text: 'Configuration saved: 2 grants added, 1 grant removed',
        added: [
          { path: '/api/v3/command', method: 'post' },
          { path: '/api/v3/movie/{id}', method: 'delete' },
        ],
        removed: [{ path: '/api/v3/movie/{id}', method: 'get' }],
      });
      expect(deactivated.summary).toMatchObject({ added: [], removed: [], active: { from: true, to: false } });
      expect(deactivated.summary.text).toBe('Configuration saved: deactivated');
    });

    it('restores over the current template, and restore revisions chain', async () => {
      await setTemplates({ restorable: { radarr: { '/api/v3/movie': ['get'] } } });
      const { proxy } = await newApp('restorable', 'restorable');
      await save(proxy.id, { '/api/v3/calendar': ['get'] });
      const [withCalendar] = await revisions(proxy.id);
      await save(proxy.id, {}, false);

      // The template changes after the revision was made: a restore uses the current template.
      await setTemplates({ restorable: { radarr: { '/api/v3/movie': ['get', 'post'] } } });
      const diff = (await admin.get(`/api/admin/v1/proxies/${proxy.id}/revisions/${withCalendar.id}/diff`).expect(200))
        .body as RevisionDiffResponse;
      expect(diff.restored).toEqual({ '/api/v3/calendar': ['get'], '/api/v3/movie': ['get', 'post'] });
      expect(diff.added).toEqual([{ path: '/api/v3/calendar', method: 'get' }]);

      const restore = (
        await admin.post(`/api/admin/v1/proxies/${proxy.id}/revisions/${withCalendar.id}/restore`).expect(200)
      ).body as RevisionDto;
      expect(restore).toMatchObject({
        kind: 'restore',
        restoredFrom: withCalendar.id,
        overrides: { '/api/v3/calendar': ['get'] },
        active: true,
      });
      expect(restore.summary.added).toEqual([{ path: '/api/v3/calendar', method: 'get' }]);
      expect(restore.summary.active).toEqual({ from: false, to: true });
      expect((await allowlist(proxy.id)).effective).toEqual({
        '/api/v3/calendar': ['get'],
        '/api/v3/movie': ['get', 'post'],
      });
      expect((await call('restorable', proxy.key, 'POST', '/api/v3/movie')).status).toBe(200);

      // Change again, then restore the restore revision: the same state comes back, pointing at it.
      await save(proxy.id, { '/api/v3/movie': [] });
      const again = (await admin.post(`/api/admin/v1/proxies/${proxy.id}/revisions/${restore.id}/restore`).expect(200))
        .body as RevisionDto;
      expect(again).toMatchObject({ kind: 'restore', restoredFrom: restore.id, overrides: restore.overrides });
      expect((await revisions(proxy.id)).map((r) => r.kind)).toEqual([
        'restore',
        'manual',
        'restore',
        'manual',
        'manual',
        'created',
      ]);
      // The key did not change.
      expect((await call('restorable', proxy.key, 'GET', '/api/v3/calendar')).status).toBe(200);
    });

    it('refuses a revision of another proxy, and a deleted proxy', async () => {
      const one = await newApp('revision-one', null);
      const two = await newApp('revision-two', null);
      const [revision] = await revisions(one.proxy.id);
      await admin.post(`/api/admin/v1/proxies/${two.proxy.id}/revisions/${revision.id}/restore`).expect(404);
      await admin.delete(`/api/admin/v1/proxies/${one.proxy.id}`).expect(204);
      await admin.post(`/api/admin/v1/proxies/${one.proxy.id}/revisions/${revision.id}/restore`).expect(404);
    });
  });

  describe('warnings → grants', () => {
    it('grants the resolved route for every identifier, keeps the template’s grants, and the next identical request passes', async () => {
      const { proxy } = await newApp('granted', 'dashboard');
      expect((await call('granted', proxy.key, 'DELETE', '/api/v3/movie/41')).status).toBe(403);
      const [warning] = await warningsOf(proxy.id);
      expect(warning).toMatchObject({ method: 'delete', route: '/api/v3/movie/{id}', status: 'open' });

      const granted = (await admin.post(`/api/admin/v1/warnings/${warning.id}/grant`).expect(200))
        .body as WarningGrantResponse;
      expect(granted.warning.status).toBe('granted');
      expect(granted.revision).toMatchObject({
        kind: 'warning-grant',
        author: TEST_ADMIN.username,
        overrides: { '/api/v3/movie/{id}': ['delete', 'get'] },
      });
      expect(granted.revision.summary.added).toEqual([{ path: '/api/v3/movie/{id}', method: 'delete' }]);
      expect(granted.revision.summary.removed).toEqual([]);
      expect((await call('granted', proxy.key, 'DELETE', '/api/v3/movie/41')).status).toBe(200);
      expect((await call('granted', proxy.key, 'DELETE', '/api/v3/movie/7')).status).toBe(200);
      expect((await call('granted', proxy.key, 'GET', '/api/v3/movie/7')).status).toBe(200);
      expect((await warningsOf(proxy.id))[0].status).toBe('granted');
      await admin.post(`/api/admin/v1/warnings/${warning.id}/grant`).expect(409);
    });

    it('grants a path that resolves to no catalog route on its exact path', async () => {
      const { proxy } = await newApp('unknown-path', null);
      expect((await call('unknown-path', proxy.key, 'GET', '/api/v3/plugin/report')).status).toBe(403);
      const [warning] = await warningsOf(proxy.id);
      expect(warning.route).toBeNull();
      await admin.post(`/api/admin/v1/warnings/${warning.id}/grant`).expect(200);
      expect((await allowlist(proxy.id)).overrides).toEqual({ '/api/v3/plugin/report': ['get'] });
      expect((await call('unknown-path', proxy.key, 'GET', '/api/v3/plugin/report')).status).toBe(200);
    });

    it('dismisses a warning; it stays dismissed when refused again', async () => {
      const { proxy } = await newApp('dismissed', null);
      await call('dismissed', proxy.key, 'GET', '/api/v3/calendar');
      const [warning] = await warningsOf(proxy.id);
      expect(
        ((await admin.post(`/api/admin/v1/warnings/${warning.id}/dismiss`).expect(200)).body as WarningDto).status,
      ).toBe('dismissed');
      await call('dismissed', proxy.key, 'GET', '/api/v3/calendar');
      const [again] = await warningsOf(proxy.id);
      expect(again).toMatchObject({ status: 'dismissed', count: 2 });
      await admin.post('/api/admin/v1/warnings/00000000-0000-4000-8000-000000000000/grant').expect(404);
    });
  });

  describe('learning mode', () => {
    it('forwards and records refused requests until its deadline, grants them in one revision, and ends by itself', async () => {
      const { proxy } = await newApp('learner', null);
      const key = proxy.key;
      const hour = 60 * 60 * 1000;
      await admin
        .post(`/api/admin/v1/proxies/${proxy.id}/learning`, { until: new Date(t.clock.now() - 1000).toISOString() })
        .expect(400);
      await admin
        .post(`/api/admin/v1/proxies/${proxy.id}/learning`, {
          until: new Date(t.clock.now() + 8 * 24 * hour).toISOString(),
        })
        .expect(400);
      await admin.post(`/api/admin/v1/proxies/${proxy.id}/learning`, { until: 'tomorrow' }).expect(400);
      const until = new Date(t.clock.now() + hour).toISOString();
      const learning = (await admin.post(`/api/admin/v1/proxies/${proxy.id}/learning`, { until }).expect(200))
        .body as ProxyDto;
      expect(learning.learningUntil).toBe(until);
      expect(((await admin.get(`/api/admin/v1/proxies/${proxy.id}`).expect(200)).body as ProxyDto).learningUntil).toBe(
        until,
      );

      // Forwarded (the upstream answers) and recorded as learned, without keys or bodies.
      const forwarded = await call('learner', key, 'GET', `/api/v3/movie/5?apikey=${key}`);
      expect(forwarded.status).toBe(200);
      await call('learner', key, 'GET', '/api/v3/movie/6');
      await call('learner', key, 'POST', '/api/v3/movie');
      const learned = await warningsOf(proxy.id);
      expect(learned.map((w) => [w.method, w.route, w.status, w.count]).sort()).toEqual([
        ['get', '/api/v3/movie/{id}', 'learned', 2],
        ['post', '/api/v3/movie', 'learned', 1],
      ]);
      expect(JSON.stringify(learned)).not.toContain(key);
      // Never opened by learning: endpoints that hand out secrets (the upstream key is in config/host).
      expect((await call('learner', key, 'GET', '/api/v3/config/host')).status).toBe(403);
      // Still not forwarded: a bad key.
      expect((await call('learner', '0'.repeat(32), 'GET', '/api/v3/movie/5')).status).toBe(401);

      const bulk = (await admin.post(`/api/admin/v1/proxies/${proxy.id}/learned/grant`).expect(200))
        .body as LearnedGrantResponse;
      expect(bulk.granted).toHaveLength(2);
      expect(bulk.revision).toMatchObject({
        kind: 'warning-grant',
        overrides: { '/api/v3/movie': ['post'], '/api/v3/movie/{id}': ['get'] },
      });
      expect((await revisions(proxy.id)).filter((r) => r.kind === 'warning-grant')).toHaveLength(1);
      expect((await warningsOf(proxy.id)).map((w) => [w.method, w.route, w.status]).sort()).toEqual([
        ['get', '/api/v3/config/host', 'open'],
        ['get', '/api/v3/movie/{id}', 'granted'],
        ['post', '/api/v3/movie', 'granted'],
      ]);
      expect(
        ((await admin.post(`/api/admin/v1/proxies/${proxy.id}/learned/grant`).expect(200)).body as LearnedGrantResponse)
          .revision,
      ).toBeNull();

      // Past the deadline the proxy refuses again, even before the deadline check has run.
      expect((await call('learner', key, 'GET', '/api/v3/calendar')).status).toBe(200);
      t.clock.advance(hour + 1000);
      expect((await call('learner', key, 'GET', '/api/v3/calendar')).status).toBe(403);
      await t.app.get(LearningDeadlines).check();
      expect(
        ((await admin.get(`/api/admin/v1/proxies/${proxy.id}`).expect(200)).body as ProxyDto).learningUntil,
      ).toBeNull();
      const ended = (await changes(`&objectId=${proxy.id}`)).find((c) => c.action === 'proxy.learning-ended');
      expect(ended).toMatchObject({ actor: 'system', objectType: 'proxy' });
    });

    it('never forwards a sensitive call of an /api/v5 service: v5 names, update segments, secret fields in schemas', async () => {
      // Stored before the service registers, so its catalog is this description (not the fake's own).
      await admin.put('/api/admin/v1/openapi/sonarr/v5', SONARR_V5).expect(200);
      const sonarr = await FakeServarr.start({ type: 'sonarr', current: 'v5' });
      try {
        const v5 = await seedService(admin, sonarr);
        const { proxy } = await seedProxy(admin, {
          service: v5,
          app: { name: 'App v5', slug: 'learner-v5' },
        });
        await admin
          .post(`/api/admin/v1/proxies/${proxy.id}/learning`, { until: new Date(t.clock.now() + 60_000).toISOString() })
          .expect(200);

        const refused: [string, string][] = [
          ['GET', '/api/v5/settings/general'],
          ['PUT', '/api/v5/settings/general'],
          ['PUT', '/api/v5/settings/general/1'],
          ['GET', '/api/v5/settings/update'],
          ['PUT', '/api/v5/settings/update'],
          ['PUT', '/api/v5/settings/update/1'],
          ['GET', '/api/v5/connection'],
          ['GET', '/api/v5/connection/1'],
          ['POST', '/api/v5/connection'],
          // Not in the description: refused by name all the same.
          ['GET', '/api/v5/settings/host'],
          ['POST', '/api/v5/connection/test'],
          ['POST', '/api/v5/system/script'],
          // A name no rule knows, refused for the secret (passphrase) its schema carries.
          ['GET', '/api/v5/settings/security'],
        ];
        const statuses = [];
        for (const [method, path] of refused)
          statuses.push([method, path, (await call('learner-v5', proxy.key, method, path)).status]);
        expect(statuses).toEqual(refused.map(([method, path]) => [method, path, 403]));
        const reached = (path: string) => sonarr.requests.some((r) => r.url.toLowerCase().startsWith(path));
        expect(['/api/v5/settings', '/api/v5/connection', '/api/v5/system/script'].filter(reached)).toEqual([]);

        // Harmless calls are still forwarded and learned.
        expect((await call('learner-v5', proxy.key, 'GET', '/api/v5/series')).status).toBe(200);
        expect((await call('learner-v5', proxy.key, 'GET', '/api/v5/series/7')).status).toBe(200);
        expect((await call('learner-v5', proxy.key, 'GET', '/api/v5/settings/ui')).status).toBe(200);
        const learned = (await warningsOf(proxy.id)).filter((w) => w.status === 'learned');
        expect(learned.map((w) => [w.method, w.route]).sort()).toEqual([
          ['get', '/api/v5/series'],
          ['get', '/api/v5/series/{id}'],
          ['get', '/api/v5/settings/ui'],
        ]);

        // The permission catalog marks the same routes.
        const endpoints = (await admin.get(`/api/admin/v1/proxies/${proxy.id}/endpoints`).expect(200))
          .body as EndpointsResponse;
        const sensitive = Object.fromEntries(endpoints.items.map((e) => [e.path, e.sensitive]));
        expect(sensitive).toEqual({
          '/api/v5/connection': true,
          '/api/v5/connection/{id}': true,
          '/api/v5/series': false,
          '/api/v5/series/{id}': false,
          '/api/v5/settings/general': true,
          '/api/v5/settings/general/{id}': true,
          '/api/v5/settings/security': true,
          '/api/v5/settings/ui': false,
          '/api/v5/settings/update': true,
          '/api/v5/settings/update/{id}': true,
        });
      } finally {
        await sonarr.stop();
      }
    });

    it('stops on request', async () => {
      const { proxy } = await newApp('stopper', null);
      await admin
        .post(`/api/admin/v1/proxies/${proxy.id}/learning`, { until: new Date(t.clock.now() + 60_000).toISOString() })
        .expect(200);
      expect((await call('stopper', proxy.key, 'GET', '/api/v3/calendar')).status).toBe(200);
      const stopped = (await admin.delete(`/api/admin/v1/proxies/${proxy.id}/learning`).expect(200)).body as ProxyDto;
      expect(stopped.learningUntil).toBeNull();
      expect((await call('stopper', proxy.key, 'GET', '/api/v3/calendar')).status).toBe(403);
    });
  });

  describe('recent changes', () => {
    // After the tests above (grants, dismissals and learning mode are theirs).
    it('shows each kind of admin write, newest first, with the actor', async () => {
      const other = await FakeServarr.start({ type: 'radarr' });
      const created = await seedService(admin, other);
      await admin.patch(`/api/admin/v1/services/${created.id}`, { apiKey: other.options.apiKey }).expect(200);
      await admin.delete(`/api/admin/v1/services/${created.id}`).expect(204);
      await other.stop();
      const { app, proxy } = await newApp('audited', 'dashboard');
      await admin.patch(`/api/admin/v1/apps/${app.id}`, { name: 'Audited app', templateId: null }).expect(200);
      await save(proxy.id, { '/api/v3/calendar': ['get'] });
      await admin.patch(`/api/admin/v1/proxies/${proxy.id}`, { active: false }).expect(200);
      await admin.post(`/api/admin/v1/proxies/${proxy.id}/rotate-key`).expect(200);
      const [first] = await revisions(proxy.id);
      await admin.post(`/api/admin/v1/proxies/${proxy.id}/revisions/${first.id}/restore`).expect(200);
      await admin.delete(`/api/admin/v1/proxies/${proxy.id}`).expect(204);
      await admin.delete(`/api/admin/v1/apps/${app.id}`).expect(204);

      const trail = await changes();
      const actions = trail.map((c) => c.action);
      for (const action of [
        'session.signed-in',
        'service.created',
        'service.updated',
        'service.deleted',
        'app.created',
        'app.updated',
        'app.deleted',
        'proxy.created',
        'proxy.config-saved',
        'proxy.deactivated',
        'proxy.key-rotated',
        'proxy.revision-restored',
        'proxy.deleted',
        'proxy.granted-from-warnings',
        'proxy.learning-started',
        'proxy.learning-stopped',
        'warning.dismissed',
      ]) {
        expect(actions).toContain(action);
      }
      // Newest first: the app deletion is the latest write.
      expect(trail[0]).toMatchObject({
        action: 'app.deleted',
        actor: TEST_ADMIN.username,
        objectType: 'app',
        objectId: app.id,
        objectName: 'Audited app',
      });
      const saved = found(
        trail.find((c) => c.action === 'proxy.config-saved' && c.objectId === proxy.id),
        'config saved',
      );
      expect(saved).toMatchObject({
        actor: TEST_ADMIN.username,
        appId: app.id,
        objectName: `Audited app → ${service.name}`,
      });
      expect(saved.summary).toContain('GET /api/v3/calendar');
      expect(trail.filter((c) => c.actor !== TEST_ADMIN.username).every((c) => c.actor === 'system')).toBe(true);

      // Filters and the cursor.
      expect((await changes('&objectType=service')).every((c) => c.objectType === 'service')).toBe(true);
      const page = (await admin.get('/api/admin/v1/changes?limit=3').expect(200)).body as Page<ChangeDto>;
      expect(page.items).toHaveLength(3);
      const next = (await admin.get(`/api/admin/v1/changes?limit=3&cursor=${page.nextCursor}`).expect(200))
        .body as Page<ChangeDto>;
      expect(next.items[0].id).toBe(trail[3].id);
      await admin.get('/api/admin/v1/changes?objectType=nope').expect(400);
      // A change never carries a key.
      expect(JSON.stringify(trail)).not.toContain(upstream.options.apiKey);
    });

    it('records sign-outs with the admin who signed out', async () => {
      const cookie = await t.signIn();
      await t.http.post('/api/auth/sign-out').set('Origin', t.config.publicOrigin).set('Cookie', cookie).expect(204);
      expect((await changes('&objectType=session'))[0]).toMatchObject({
        action: 'session.signed-out',
        actor: TEST_ADMIN.username,
      });
    });
  });
});
