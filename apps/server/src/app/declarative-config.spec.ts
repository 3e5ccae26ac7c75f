import type {
  AppDto,
  ChangeDto,
  ConfigDocument,
  ConfigImportReport,
  Page,
  ProxyConnectionDto,
  RevisionDto,
} from '@arrbiter/contracts';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { parse } from 'yaml';
import { AdminClient, found, startTestApp, TestApp } from '../testing/test-app';
import { seedProxy, seedService } from '@arrbiter/server/testing';

const byBaseUrl = <T extends { baseUrl: string }>(services: T[]): T[] =>
  [...services].sort((a, b) => (a.baseUrl < b.baseUrl ? -1 : 1));

/** The admin API's declarative configuration: export, import (dry run and applied), validation, prune. */
/** The source's webhook: its topic is the secret. */
const WEBHOOK_URL = 'https://ntfy.example.test/arrbiter-secret-topic';

describe('declarative configuration over the admin API', () => {
  let source: TestApp;
  let admin: AdminClient;
  let radarr: FakeServarr;
  let sonarr: FakeServarr;
  let notifiarr: AppDto;
  let proxy: ProxyConnectionDto;
  /** Signed in before the second app starts (passport's strategies are the process's: the last app's win). */
  let sourceCookie: string;

  beforeAll(async () => {
    source = await startTestApp({ OPENAPI_SOURCES: 'none' });
    admin = await source.admin();
    sourceCookie = await source.signIn();
    radarr = await FakeServarr.start({ type: 'radarr', instanceName: 'Movies' });
    sonarr = await FakeServarr.start({ type: 'sonarr', instanceName: 'Shows', urlBase: '/sonarr' });
    const movies = await seedService(admin, radarr);
    const shows = await seedService(admin, sonarr);
    ({ app: notifiarr, proxy } = await seedProxy(admin, {
      service: movies,
      app: { name: 'Notifiarr', slug: 'notifiarr' },
      config: {
        overrides: { '/api/v3/movie': ['get'], '/api/v3/system/status': ['get'] },
        active: true,
        rateLimit: { perMinute: 120, burst: 20 },
        scrub: false,
      },
    }));
    const template = (
      await admin.post(`/api/admin/v1/apps/${notifiarr.id}/save-as-template`, { name: 'Notifiarr base' }).expect(201)
    ).body as { id: string };
    const { app: overseerr } = await seedProxy(admin, {
      service: movies,
      app: { name: 'Overseerr', slug: 'overseerr', templateId: template.id, active: false },
    });
    await seedProxy(admin, { service: shows, app: overseerr });
    await admin.put('/api/admin/v1/settings/proxy-defaults', { rateLimit: null, scrub: true }).expect(200);
    // No events: it is never called.
    await admin
      .put('/api/admin/v1/settings/notifications', {
        webhooks: [{ url: WEBHOOK_URL, format: 'ntfy', events: [], enabled: true }],
      })
      .expect(200);
  });
  afterAll(async () => {
    await source?.close();
    await radarr?.stop();
    await sonarr?.stop();
  });

  const exported = async (client: AdminClient, secrets = false) =>
    (await client.get(`/api/admin/v1/config/export${secrets ? '?secrets=true' : ''}`).expect(200))
      .body as ConfigDocument;

  it('exports every object by its natural key, keys only with secrets, as JSON or YAML', async () => {
    const document = await exported(admin);
    expect(document).toEqual({
      version: 1,
      settings: {
        proxyDefaults: { rateLimit: null, scrub: true },
        templateRepository: { url: '', ref: '', path: '', intervalMinutes: 0 },
        // The webhook's URL is a secret: masked without secrets.
        notifications: {
          webhooks: [{ url: 'https://ntfy.example.test/…', format: 'ntfy', events: [], enabled: true }],
        },
      },
      // Sorted by base URL (the fakes' ports decide which comes first).
      services: byBaseUrl([
        { name: 'Movies', type: 'radarr', baseUrl: radarr.url },
        { name: 'Shows', type: 'sonarr', baseUrl: sonarr.url },
      ]),
      templates: [
        {
          name: 'Notifiarr base',
          blocks: { radarr: { '/api/v3/movie': ['get'], '/api/v3/system/status': ['get'] } },
        },
      ],
      apps: [
        {
          slug: 'notifiarr',
          name: 'Notifiarr',
          template: null,
          active: true,
          proxies: [
            {
              service: 'Movies',
              active: true,
              overrides: { '/api/v3/movie': ['get'], '/api/v3/system/status': ['get'] },
              rateLimit: { perMinute: 120, burst: 20 },
              scrub: false,
            },
          ],
        },
        {
          slug: 'overseerr',
          name: 'Overseerr',
          template: 'Notifiarr base',
          active: false,
          proxies: [
            { service: 'Movies', active: true, overrides: {}, rateLimit: null, scrub: true },
            { service: 'Shows', active: true, overrides: {}, rateLimit: null, scrub: true },
          ],
        },
      ],
    });
    const text = JSON.stringify(document);
    expect(text).not.toContain(radarr.options.apiKey);
    expect(text).not.toContain(proxy.key);
    expect(text).not.toContain('arrbiter-secret-topic');

    const withSecrets = await exported(admin, true);
    expect(withSecrets.services?.find((s) => s.type === 'radarr')).toEqual({
      name: 'Movies',
      type: 'radarr',
      baseUrl: radarr.url,
      apiKey: radarr.options.apiKey,
    });
    expect(withSecrets.apps?.[0].proxies?.[0].key).toBe(proxy.key);
    expect(withSecrets.settings?.notifications?.webhooks.map((w) => w.url)).toEqual([WEBHOOK_URL]);

    const yaml = await admin
      .get('/api/admin/v1/config/export?secrets=true')
      .set('Accept', 'application/yaml')
      .expect(200);
    expect(yaml.headers['content-type']).toMatch(/^application\/yaml/);
    expect(yaml.headers['cache-control']).toBe('no-store');
    expect(parse(yaml.text)).toEqual(withSecrets);
  });

  it('reports nothing to change for its own export, and writes nothing', async () => {
    const changesBefore = (await admin.get('/api/admin/v1/changes').expect(200)).body as Page<ChangeDto>;
    for (const dryRun of [true, false]) {
      const report = (
        await admin.post(`/api/admin/v1/config/import?dryRun=${dryRun}`, await exported(admin, true)).expect(200)
      ).body as ConfigImportReport;
      expect(report).toMatchObject({
        dryRun,
        changed: false,
        services: [],
        apps: [],
        proxies: [],
        unchanged: { settings: 3, services: 2, templates: 1, apps: 2, proxies: 3 },
      });
    }
    // Without secrets too: a masked webhook URL keeps the webhook it masks.
    const masked = (await admin.post('/api/admin/v1/config/import', await exported(admin)).expect(200))
      .body as ConfigImportReport;
    expect(masked).toMatchObject({ changed: false, settings: [], unchanged: { settings: 3 } });
    const changesAfter = (await admin.get('/api/admin/v1/changes').expect(200)).body as Page<ChangeDto>;
    expect(changesAfter.items[0].id).toBe(changesBefore.items[0].id);
  });

  it('writes the webhooks’ URLs (owner-only settings) whole only for an owner, even with secrets', async () => {
    const editor = { username: 'ed-export', password: 'editor passphrase 1' };
    await admin.post('/api/admin/v1/admins', { ...editor, role: 'editor' }).expect(201);
    const cookie = await source.signIn(editor);
    for (const accept of ['application/json', 'application/yaml']) {
      const response = await source.http
        .get('/api/admin/v1/config/export?secrets=true')
        .set('Cookie', cookie)
        .set('Accept', accept)
        .expect(200);
      const document = (accept === 'application/json' ? response.body : parse(response.text)) as ConfigDocument;
      // The editor's own secrets (upstream and proxy keys) are written ...
      expect(document.apps?.[0].proxies?.[0].key).toBe(proxy.key);
      expect(document.services?.find((s) => s.type === 'radarr')?.apiKey).toBe(radarr.options.apiKey);
      // ... the webhook's URL only masked, as without secrets.
      expect(document.settings?.notifications?.webhooks.map((w) => w.url)).toEqual(['https://ntfy.example.test/…']);
      expect(response.text).not.toContain('arrbiter-secret-topic');
    }
    const owner = await exported(admin, true);
    expect(owner.settings?.notifications?.webhooks.map((w) => w.url)).toEqual([WEBHOOK_URL]);
  });

  describe('into an empty instance', () => {
    let target: TestApp;
    let targetAdmin: AdminClient;

    beforeAll(async () => {
      target = await startTestApp({ OPENAPI_SOURCES: 'none' });
      targetAdmin = await target.admin();
    });
    afterAll(async () => {
      await target?.close();
    });

    it('a dry run reports what would be created and writes nothing', async () => {
      const report = (
        await targetAdmin.post('/api/admin/v1/config/import?dryRun=true', await exported(admin, true)).expect(200)
      ).body as ConfigImportReport;
      expect(report.changed).toBe(true);
      expect(report.services.map((s) => [s.kind, s.name])).toEqual(
        byBaseUrl([{ baseUrl: radarr.url }, { baseUrl: sonarr.url }]).map((s) => ['created', s.baseUrl]),
      );
      expect(report.apps.map((a) => [a.kind, a.name])).toEqual([
        ['created', 'notifiarr'],
        ['created', 'overseerr'],
      ]);
      expect(report.proxies).toHaveLength(3);
      expect(report.proxies[0]).toMatchObject({
        kind: 'created',
        app: 'notifiarr',
        added: [
          { path: '/api/v3/movie', method: 'get' },
          { path: '/api/v3/system/status', method: 'get' },
        ],
      });
      expect((await targetAdmin.get('/api/admin/v1/services').expect(200)).body).toEqual([]);
      expect(((await targetAdmin.get('/api/admin/v1/apps').expect(200)).body as Page<AppDto>).items).toEqual([]);
    });

    it('reproduces the instance exactly, keys included, each proxy with an import revision', async () => {
      const document = await exported(admin, true);
      const report = (await targetAdmin.post('/api/admin/v1/config/import', document).expect(200))
        .body as ConfigImportReport;
      expect(report).toMatchObject({ dryRun: false, changed: true });
      expect(await exported(targetAdmin, true)).toEqual(document);

      // The exported key works on the new instance, against the same upstream.
      const base = await target.listen();
      const call = await fetch(`${base}/proxy/notifiarr/api/v3/movie`, { headers: { 'x-api-key': proxy.key } });
      expect(call.status).toBe(200);
      expect(radarr.requests.at(-1)?.headers['x-api-key']).toBe(radarr.options.apiKey);

      const apps = ((await targetAdmin.get('/api/admin/v1/apps').expect(200)).body as Page<AppDto>).items;
      const imported = found(
        apps.find((a) => a.slug === 'notifiarr'),
        'the imported app',
      );
      const [importedProxy] = (await targetAdmin.get(`/api/admin/v1/apps/${imported.id}/proxies`).expect(200))
        .body as ProxyConnectionDto[];
      const revisions = (await targetAdmin.get(`/api/admin/v1/proxies/${importedProxy.id}/revisions`).expect(200))
        .body as Page<RevisionDto>;
      expect(revisions.items.map((r) => [r.kind, r.author])).toEqual([['import', 'admin']]);
      const changes = (await targetAdmin.get('/api/admin/v1/changes?objectType=config').expect(200))
        .body as Page<ChangeDto>;
      expect(changes.items).toEqual([
        expect.objectContaining({
          actor: 'admin',
          action: 'config.imported',
          summary: expect.stringMatching(/admin API/),
        }),
      ]);
    });

    it('changes only what differs, each changed proxy with an import revision that can be restored', async () => {
      const document = await exported(targetAdmin);
      const notifiarrApp = found(
        document.apps?.find((a) => a.slug === 'notifiarr'),
        'notifiarr',
      );
      const movies = found(notifiarrApp.proxies?.[0], 'its proxy');
      movies.overrides = { '/api/v3/movie': ['get', 'post'] };
      notifiarrApp.name = 'Notifiarr (renamed)';
      const report = (await targetAdmin.post('/api/admin/v1/config/import?dryRun=false', document).expect(200))
        .body as ConfigImportReport;
      expect(report.apps).toEqual([{ kind: 'updated', name: 'notifiarr', changes: ['name'] }]);
      expect(report.proxies).toEqual([
        expect.objectContaining({
          kind: 'updated',
          app: 'notifiarr',
          changes: ['overrides'],
          added: [{ path: '/api/v3/movie', method: 'post' }],
          removed: [{ path: '/api/v3/system/status', method: 'get' }],
        }),
      ]);
      expect(report.unchanged.proxies).toBe(2);

      const apps = ((await targetAdmin.get('/api/admin/v1/apps').expect(200)).body as Page<AppDto>).items;
      const app = found(
        apps.find((a) => a.slug === 'notifiarr'),
        'notifiarr',
      );
      const [only] = (await targetAdmin.get(`/api/admin/v1/apps/${app.id}/proxies`).expect(200))
        .body as ProxyConnectionDto[];
      const revisions = (
        (await targetAdmin.get(`/api/admin/v1/proxies/${only.id}/revisions`).expect(200)).body as Page<RevisionDto>
      ).items;
      expect(revisions.map((r) => r.kind)).toEqual(['import', 'import']);
      await targetAdmin.post(`/api/admin/v1/proxies/${only.id}/revisions/${revisions[1].id}/restore`).expect(200);
      expect((await targetAdmin.get(`/api/admin/v1/proxies/${only.id}/allowlist`).expect(200)).body).toMatchObject({
        overrides: { '/api/v3/movie': ['get'], '/api/v3/system/status': ['get'] },
      });
    });

    it('deletes what the document leaves out only with prune, and only in the collections it lists', async () => {
      const document: ConfigDocument = { version: 1, apps: [{ slug: 'notifiarr', name: 'Notifiarr' }] };
      const kept = (await targetAdmin.post('/api/admin/v1/config/import?dryRun=true', document).expect(200))
        .body as ConfigImportReport;
      expect(kept.apps).toEqual([{ kind: 'updated', name: 'notifiarr', changes: ['name'] }]);
      expect(kept.unchanged).toMatchObject({ apps: 0, proxies: 0 });

      const pruned = (
        await targetAdmin
          .post('/api/admin/v1/config/import?dryRun=true', { version: 1, prune: true, templates: [] })
          .expect(400)
      ).body as { message: string[] };
      // The template that stays in use cannot go: nothing is deleted.
      expect(pruned.message).toEqual([
        'templates: "Notifiarr base" is not listed but apps use it (overseerr): list it, or change their template',
      ]);

      const report = (
        await targetAdmin.post('/api/admin/v1/config/import?dryRun=false', { ...document, prune: true }).expect(200)
      ).body as ConfigImportReport;
      expect(report.apps).toEqual([
        { kind: 'updated', name: 'notifiarr', changes: ['name'] },
        { kind: 'deleted', name: 'overseerr', changes: ['with its 2 proxies'] },
      ]);
      expect(report.services).toEqual([]);
      const apps = ((await targetAdmin.get('/api/admin/v1/apps').expect(200)).body as Page<AppDto>).items;
      expect(apps.map((a) => a.slug)).toEqual(['notifiarr']);
      expect((await targetAdmin.get('/api/admin/v1/services').expect(200)).body).toHaveLength(2);
    });
  });

  describe('refuses a document that is not valid, naming where, and writes nothing', () => {
    it.each<[string, unknown, string[]]>([
      ['not an object', [1], ['the document must be an object with a version (see docs/declarative-config.md)']],
      ['another version', { version: 2 }, ['version must be 1 (the document version this server reads)']],
      [
        'an unknown field',
        { version: 1, apps: [{ slug: 'a', name: 'A', colour: 'red' }] },
        ['apps[0].colour is not a known field'],
      ],
      [
        'a bad slug and a bad rate limit',
        {
          version: 1,
          apps: [
            { slug: 'Not A Slug', name: 'A', proxies: [{ service: 'Movies', rateLimit: { perMinute: 0, burst: 1 } }] },
          ],
        },
        [
          'apps[0].slug must be 1-63 lower-case letters, digits or "-", starting with a letter or digit',
          'apps[0].proxies[0].rateLimit.perMinute must not be less than 1',
        ],
      ],
      [
        'bad overrides',
        {
          version: 1,
          apps: [
            {
              slug: 'a',
              name: 'A',
              proxies: [{ service: 'Movies', overrides: { '/api/v3/movie': ['GET'], nope: [] } }],
            },
          ],
        },
        [
          'apps[0].proxies[0].overrides["/api/v3/movie"]: "GET" is not a lower-case HTTP method (get, head, post, put, patch, delete, options)',
          'apps[0].proxies[0].overrides: "nope" is not an API path (absolute, segments literal or {param}, no query)',
        ],
      ],
      [
        'a slug listed twice and a base URL ending in /api',
        {
          version: 1,
          services: [{ baseUrl: 'http://radarr:7878/api' }],
          apps: [
            { slug: 'a', name: 'A' },
            { slug: 'a', name: 'B' },
          ],
        },
        [
          'services[0].baseUrl must not end in an API prefix (/api): give the address up to the URL base, e.g. http://radarr:7878',
          'apps[1].slug: a is already listed at apps[0].slug',
        ],
      ],
      [
        'a secret reference',
        { version: 1, services: [{ baseUrl: 'http://radarr:7878', apiKey: '${RADARR_KEY}' }] },
        [
          'services[0].apiKey: ${RADARR_KEY} is a secret reference; they are resolved only in CONFIG_FILE and `main.js import`, so send the value itself',
        ],
      ],
      [
        'an unknown service and template',
        { version: 1, apps: [{ slug: 'a', name: 'A', template: 'Nope', proxies: [{ service: 'Lidarr' }] }] },
        [
          'apps[0].template: no template named "Nope" here or under templates (a repository template comes from a template sync, or from a document exported with it)',
          'apps[0].proxies[0].service: no service "Lidarr" (give a base URL or the name of a service listed under services or registered here)',
        ],
      ],
      [
        'a webhook URL that is not http(s), and an unknown event',
        {
          version: 1,
          settings: {
            notifications: {
              webhooks: [{ url: 'ftp://example.test/x', format: 'json', events: ['key.lost'], enabled: true }],
            },
          },
        },
        [
          'settings.notifications.webhooks[0].url must start with http:// or https://',
          'settings.notifications.webhooks[0].events: each value in events must be one of the following values: warning.new, learning.ended, template-sync.failed, template-sync.changed, service.unreachable, service.recovered, key.rotated',
        ],
      ],
      [
        'a masked webhook URL that matches no webhook',
        {
          version: 1,
          settings: {
            notifications: {
              webhooks: [
                {
                  url: 'https://discord.com/api/webhooks/1/…',
                  format: 'discord',
                  events: ['key.rotated'],
                  enabled: true,
                },
              ],
            },
          },
        },
        [
          'settings.notifications: webhooks[0].url is masked and matches no webhook here: a new webhook needs its whole URL (export with secrets, or a ${ENV} reference in CONFIG_FILE)',
        ],
      ],
      [
        'a new service without its key',
        { version: 1, services: [{ baseUrl: 'http://lidarr:8686' }] },
        [
          'services[0].apiKey is required to register http://lidarr:8686, which this instance does not have (export with secrets, or reference a secret in CONFIG_FILE)',
        ],
      ],
    ])('%s', async (_name, document, problems) => {
      const before = await exported(admin, true);
      const response = await admin.post('/api/admin/v1/config/import?dryRun=false', document as object).expect(400);
      expect(response.body).toEqual({ statusCode: 400, error: 'Bad Request', message: problems });
      expect(await exported(admin, true)).toEqual(before);
    });

    it('an upstream that cannot be reached stops the whole import (502)', async () => {
      const before = await exported(admin, true);
      const document = {
        version: 1,
        services: [{ baseUrl: 'http://127.0.0.1:1', apiKey: 'a'.repeat(32) }],
        apps: [{ slug: 'new-app', name: 'New', proxies: [{ service: 'http://127.0.0.1:1' }] }],
      };
      const response = await admin.post('/api/admin/v1/config/import', document).expect(502);
      expect((response.body as { message: string[] }).message).toEqual([
        expect.stringMatching(
          /^services\[0\]: Arrbiter could not connect to 127\.0\.0\.1 port 1: the port is not valid/,
        ),
      ]);
      expect(await exported(admin, true)).toEqual(before);
    });

    it('YAML is read with Content-Type application/yaml; other types answer 415', async () => {
      const cookie = sourceCookie;
      const post = (type: string, body: string) =>
        source.http
          .post('/api/admin/v1/config/import?dryRun=true')
          .set('Cookie', cookie)
          .set('Origin', source.config.publicOrigin)
          .set('Content-Type', type)
          .send(body);
      const yaml = 'version: 1\napps:\n  - slug: notifiarr\n    name: Notifiarr\n    colour: red\n';
      const refused = await post('application/yaml', yaml).expect(400);
      expect((refused.body as { message: string[] }).message).toEqual(['apps[0].colour is not a known field']);
      const fine = await post('application/yaml', yaml.replace('    colour: red\n', '')).expect(200);
      expect(fine.body).toMatchObject({ changed: false, unchanged: { apps: 1 } });
      await post('text/plain', 'version: 1').expect(415);
      const duplicate = await post('application/yaml', 'version: 1\nversion: 1\n').expect(400);
      expect((duplicate.body as { message: string[] }).message).toEqual([
        expect.stringMatching(/^the document is not valid YAML \(Map keys must be unique/),
      ]);
    });
  });

  it('needs a session, and a write needs the Origin', async () => {
    await source.http.get('/api/admin/v1/config/export').expect(401);
    const cookie = sourceCookie;
    const refused = await source.http.post('/api/admin/v1/config/import').set('Cookie', cookie).send({ version: 1 });
    expect([refused.status, refused.text]).toEqual([403, expect.any(String)]);
  });
});
