import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  AppDto,
  ChangeDto,
  ConfigDocument,
  ConfigImportReport,
  NotificationSettings,
  Page,
  ProxyConnectionDto,
  RevisionDto,
  TemplateDto,
} from '@arrbiter/contracts';
import { createTestDatabase, TestDatabase, seedProxy, seedService } from '@arrbiter/server/testing';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { parse, stringify } from 'yaml';
import { AdminHttpClient } from '../support/admin-client';
import { runCommand, ServerProcess, startServer } from '../support/server-process';

const ADMIN = { ADMIN_USERNAME: 'admin', ADMIN_PASSWORD: 'declarative test passphrase' };

/** A notification webhook's URL, declared through an environment reference (its topic is the secret). */
const NTFY_URL = 'https://ntfy.example.test/gitops-secret-topic';

/** Declarative configuration against the production build: two instances, the commands, CONFIG_FILE. */
describe('declarative configuration of the production server', () => {
  const databases: TestDatabase[] = [];
  const servers: ServerProcess[] = [];
  let radarr: FakeServarr;
  let sonarr: FakeServarr;
  let source: AdminHttpClient;
  let sourceKey: string;
  let work: string;

  const database = async () => {
    const created = await createTestDatabase();
    databases.push(created);
    return created;
  };
  const start = async (env: NodeJS.ProcessEnv) => {
    const server = await startServer({ ...env, ...ADMIN, OPENAPI_SOURCES: 'none' });
    servers.push(server);
    return server;
  };
  const signIn = (server: ServerProcess) => AdminHttpClient.signIn(server, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD);
  const exported = (client: AdminHttpClient, secrets = true) =>
    client.request<ConfigDocument>('GET', `/api/admin/v1/config/export${secrets ? '?secrets=true' : ''}`);
  const proxyCall = (server: ServerProcess, slug: string, key: string) =>
    fetch(`${server.url}/proxy/${slug}/api/v3/movie`, { headers: { 'x-api-key': key } });

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'arrbiter-declarative-'));
    radarr = await FakeServarr.start({ type: 'radarr', instanceName: 'Movies' });
    sonarr = await FakeServarr.start({ type: 'sonarr', instanceName: 'Shows', urlBase: '/sonarr' });
    const server = await start((await database()).env);
    source = await signIn(server);
    const movies = await seedService(source, radarr);
    const shows = await seedService(source, sonarr);
    const { app: notifiarr, proxy } = await seedProxy(source, {
      service: movies,
      app: { name: 'Notifiarr', slug: 'notifiarr' },
      config: { overrides: { '/api/v3/movie': ['get'] }, active: true, rateLimit: { perMinute: 600, burst: 50 } },
    });
    sourceKey = proxy.key;
    const template = await source.request<TemplateDto>('POST', `/api/admin/v1/apps/${notifiarr.id}/save-as-template`, {
      name: 'Read movies',
    });
    const homepage = await source.request<AppDto>('POST', '/api/admin/v1/apps', {
      name: 'Homepage',
      slug: 'homepage',
      templateId: template.id,
      active: true,
    });
    await source.request('POST', `/api/admin/v1/apps/${homepage.id}/proxies`, { serviceId: movies.id });
    const shown = await source.request<ProxyConnectionDto>('POST', `/api/admin/v1/apps/${homepage.id}/proxies`, {
      serviceId: shows.id,
    });
    await source.request('PATCH', `/api/admin/v1/proxies/${shown.id}`, { active: false });
    await source.request('PUT', '/api/admin/v1/settings/proxy-defaults', {
      rateLimit: { perMinute: 300, burst: 30 },
      scrub: true,
    });
    expect((await proxyCall(server, 'notifiarr', sourceKey)).status).toBe(200);
  });
  afterAll(async () => {
    for (const server of servers) await server.stop();
    await radarr?.stop();
    await sonarr?.stop();
    for (const created of databases) await created.drop();
    if (work) rmSync(work, { recursive: true, force: true });
  });

  describe('export, then import into an empty instance over HTTP', () => {
    let target: ServerProcess;
    let client: AdminHttpClient;
    let targetEnv: NodeJS.ProcessEnv;
    let document: ConfigDocument;

    beforeAll(async () => {
      targetEnv = (await database()).env;
      target = await start(targetEnv);
      client = await signIn(target);
      document = await exported(source);
    });

    it('a dry run reports the diff and changes nothing', async () => {
      const report = await client.request<ConfigImportReport>(
        'POST',
        '/api/admin/v1/config/import?dryRun=true',
        document,
      );
      expect(report).toMatchObject({ dryRun: true, changed: true });
      expect(report.services.map((s) => s.kind)).toEqual(['created', 'created']);
      expect(report.templates).toEqual([{ kind: 'created', name: 'Read movies', changes: ['local', 'radarr'] }]);
      expect(report.apps.map((a) => [a.kind, a.name])).toEqual([
        ['created', 'homepage'],
        ['created', 'notifiarr'],
      ]);
      expect(report.proxies.map((p) => [p.kind, p.app])).toEqual([
        ['created', 'homepage'],
        ['created', 'homepage'],
        ['created', 'notifiarr'],
      ]);
      expect(await exported(client)).toEqual({
        version: 1,
        settings: {
          proxyDefaults: { rateLimit: null, scrub: true },
          templateRepository: { url: '', ref: '', path: '', intervalMinutes: 0 },
          notifications: { webhooks: [] },
        },
        services: [],
        templates: [],
        apps: [],
      });
      expect((await proxyCall(target, 'notifiarr', sourceKey)).status).toBe(401);
    });

    it('an invalid document answers 400 naming its place, and writes nothing', async () => {
      const broken = structuredClone(document);
      const app = broken.apps?.[1];
      if (!app?.proxies) throw new Error('the export has no notifiarr proxies');
      app.proxies[0].overrides = { '/api/v3/movie': ['fetch'] };
      const response = await fetch(`${target.url}/api/admin/v1/config/import`, {
        method: 'POST',
        headers: {
          cookie: client.cookieHeader,
          origin: AdminHttpClient.origin(target),
          'content-type': 'application/json',
        },
        body: JSON.stringify(broken),
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as { message: string[] }).message).toEqual([
        'apps[1].proxies[0].overrides["/api/v3/movie"]: "fetch" is not a lower-case HTTP method (get, head, post, put, patch, delete, options)',
      ]);
      expect((await exported(client)).apps).toEqual([]);
    });

    it('applies it in one go: both exports are equal and the exported proxy keys work there', async () => {
      const report = await client.request<ConfigImportReport>(
        'POST',
        '/api/admin/v1/config/import?dryRun=false',
        document,
      );
      expect(report).toMatchObject({ dryRun: false, changed: true });
      expect(await exported(client)).toEqual(document);
      expect(await exported(client, false)).toEqual(await exported(source, false));

      radarr.requests.length = 0;
      const call = await proxyCall(target, 'notifiarr', sourceKey);
      expect(call.status).toBe(200);
      expect(radarr.requests.at(-1)?.headers['x-api-key']).toBe(radarr.options.apiKey);
      // Refused as on the source: the allowlist came along too.
      const refused = await fetch(`${target.url}/proxy/notifiarr/api/v3/system/status`, {
        headers: { 'x-api-key': sourceKey },
      });
      expect(refused.status).toBe(403);

      const changes = await client.request<Page<ChangeDto>>('GET', '/api/admin/v1/changes?objectType=config');
      expect(changes.items).toEqual([
        expect.objectContaining({
          actor: 'admin',
          action: 'config.imported',
          summary: expect.stringContaining('apps: 2 created'),
        }),
      ]);
      // A second import of the same document changes nothing.
      const again = await client.request<ConfigImportReport>('POST', '/api/admin/v1/config/import', document);
      expect(again.changed).toBe(false);
    });

    it('gives each proxy it changes an import revision, which can be restored', async () => {
      const changed = structuredClone(document);
      const notifiarr = changed.apps?.find((a) => a.slug === 'notifiarr');
      if (!notifiarr?.proxies) throw new Error('no notifiarr');
      notifiarr.proxies[0].overrides = { '/api/v3/movie': ['get'], '/api/v3/system/status': ['get'] };
      const report = await client.request<ConfigImportReport>('POST', '/api/admin/v1/config/import', changed);
      expect(report.proxies).toEqual([
        expect.objectContaining({
          kind: 'updated',
          app: 'notifiarr',
          changes: ['overrides'],
          added: [{ path: '/api/v3/system/status', method: 'get' }],
          removed: [],
        }),
      ]);
      expect(
        (await fetch(`${target.url}/proxy/notifiarr/api/v3/system/status`, { headers: { 'x-api-key': sourceKey } }))
          .status,
      ).toBe(200);

      const apps = await client.request<Page<AppDto>>('GET', '/api/admin/v1/apps?q=notifiarr');
      const [proxy] = await client.request<ProxyConnectionDto[]>(
        'GET',
        `/api/admin/v1/apps/${apps.items[0].id}/proxies`,
      );
      const revisions = await client.request<Page<RevisionDto>>('GET', `/api/admin/v1/proxies/${proxy.id}/revisions`);
      expect(revisions.items.map((r) => [r.kind, r.author])).toEqual([
        ['import', 'admin'],
        ['import', 'admin'],
      ]);
      await client.request('POST', `/api/admin/v1/proxies/${proxy.id}/revisions/${revisions.items[1].id}/restore`);
      expect(
        (await fetch(`${target.url}/proxy/notifiarr/api/v3/system/status`, { headers: { 'x-api-key': sourceKey } }))
          .status,
      ).toBe(403);
      expect(await exported(client)).toEqual(document);
    });

    it('exports and imports from the command line (the server stopped: the embedded database has one user)', async () => {
      // Read before the commands run: a keep-alive connection idle that long may be closed under a request.
      const sourceWithoutSecrets = await exported(source, false);
      expect(await target.stop()).toBe(0);
      const yaml = runCommand(['export', '--secrets', '--yaml'], targetEnv);
      expect(yaml.status).toBe(0);
      expect(parse(yaml.stdout)).toEqual(document);
      const json = runCommand(['export'], targetEnv);
      expect(JSON.parse(json.stdout)).toEqual(sourceWithoutSecrets);

      const file = join(work, 'more.yaml');
      writeFileSync(
        file,
        stringify({
          version: 1,
          apps: [
            {
              slug: 'lunasea',
              name: 'LunaSea',
              proxies: [{ service: 'Movies', overrides: { '/api/v3/movie': ['get'] } }],
            },
          ],
        }),
      );
      const dryRun = runCommand(['import', file, '--dry-run'], targetEnv);
      expect(dryRun).toMatchObject({ status: 0 });
      expect(dryRun.output).toContain('Would change: apps: 1 created; proxies: 1 created');
      expect((parse(runCommand(['export', '--yaml'], targetEnv).stdout) as ConfigDocument).apps).toHaveLength(2);

      const applied = runCommand(['import', file], targetEnv);
      expect(applied).toMatchObject({ status: 0 });
      expect(applied.output).toContain('Changed: apps: 1 created; proxies: 1 created');
      const after = JSON.parse(runCommand(['export'], targetEnv).stdout) as ConfigDocument;
      expect(after.apps?.map((a) => a.slug)).toEqual(['homepage', 'lunasea', 'notifiarr']);

      const invalid = join(work, 'invalid.json');
      writeFileSync(
        invalid,
        JSON.stringify({ version: 1, apps: [{ slug: 'x', name: 'X', proxies: [{ service: 'Nowhere' }] }] }),
      );
      const refused = runCommand(['import', invalid], targetEnv);
      expect(refused.status).toBe(1);
      expect(refused.output).toContain(
        'apps[0].proxies[0].service: no service "Nowhere" (give a base URL or the name of a service listed under services or registered here)',
      );
    });
  });

  describe('CONFIG_FILE at start-up', () => {
    let env: NodeJS.ProcessEnv;
    let proxyKey: string;

    beforeAll(async () => {
      env = (await database()).env;
      proxyKey = 'c0ffee'.padEnd(32, '0');
      writeFileSync(join(work, 'proxy.key'), `${proxyKey}\n`);
      writeFileSync(
        join(work, 'arrbiter.yaml'),
        [
          '# Declared in a GitOps repository; secrets come from the environment and from mounted files.',
          'version: 1',
          'settings:',
          '  notifications:',
          '    webhooks:',
          '      - url: ${NTFY_URL}',
          '        format: ntfy',
          '        events: [key.rotated]',
          '        enabled: true',
          'services:',
          `  - baseUrl: ${radarr.url}`,
          '    apiKey: ${RADARR_KEY}',
          'apps:',
          '  - slug: homepage',
          '    name: Homepage',
          '    proxies:',
          '      - service: Movies',
          "        overrides: { '/api/v3/movie': [get] }",
          `        key: \${file:${join(work, 'proxy.key')}}`,
          '',
        ].join('\n'),
      );
      env = { ...env, CONFIG_FILE: join(work, 'arrbiter.yaml') };
    });

    it('refuses to start when a reference cannot be resolved, naming it and no value', () => {
      const result = runCommand([], { ...env, ...ADMIN });
      expect(result.status).toBe(1);
      expect(result.output).toContain(
        `CONFIG_FILE ${join(work, 'arrbiter.yaml')} was not applied (nothing was changed):`,
      );
      expect(result.output).toContain(
        'services[0].apiKey: ${RADARR_KEY} cannot be resolved: the environment variable RADARR_KEY is not set',
      );
      expect(result.output).not.toContain(proxyKey);
    });

    it('applies the document with its ${ENV} and ${file:} secrets, and changes nothing on the next start', async () => {
      let server = await start({ ...env, RADARR_KEY: radarr.options.apiKey, NTFY_URL });
      expect(server.output()).toContain(
        'applied: settings: 1 updated; services: 1 created; apps: 1 created; proxies: 1 created',
      );
      expect((await proxyCall(server, 'homepage', proxyKey)).status).toBe(200);
      let client = await signIn(server);
      const before = await exported(client);
      const changes = await client.request<Page<ChangeDto>>('GET', '/api/admin/v1/changes');
      expect(changes.items.find((c) => c.objectType === 'config')).toMatchObject({
        actor: 'system',
        action: 'config.imported',
        summary: expect.stringContaining(`CONFIG_FILE ${join(work, 'arrbiter.yaml')}`),
      });
      expect(server.output()).not.toContain(radarr.options.apiKey);
      expect(server.output()).not.toContain(proxyKey);
      expect(server.output()).not.toContain('gitops-secret-topic');
      // The webhook's URL came from the environment; it is answered masked.
      const notifications = await client.request<NotificationSettings>('GET', '/api/admin/v1/settings/notifications');
      expect(notifications.webhooks).toEqual([
        {
          id: expect.any(String),
          url: 'https://ntfy.example.test/…',
          format: 'ntfy',
          events: ['key.rotated'],
          enabled: true,
        },
      ]);
      expect(await server.stop()).toBe(0);

      server = await start({ ...env, RADARR_KEY: radarr.options.apiKey, NTFY_URL });
      expect(server.output()).toContain('applied: nothing to change');
      client = await signIn(server);
      expect(await exported(client)).toEqual(before);
      const [app] = (await client.request<Page<AppDto>>('GET', '/api/admin/v1/apps')).items;
      const [proxy] = await client.request<ProxyConnectionDto[]>('GET', `/api/admin/v1/apps/${app.id}/proxies`);
      const revisions = await client.request<Page<RevisionDto>>('GET', `/api/admin/v1/proxies/${proxy.id}/revisions`);
      expect(revisions.items.map((r) => [r.kind, r.author])).toEqual([['import', 'system']]);
      const after = await client.request<Page<ChangeDto>>('GET', '/api/admin/v1/changes');
      expect(after.items.filter((c) => c.action === 'config.imported')).toHaveLength(1);
      expect((await proxyCall(server, 'homepage', proxyKey)).status).toBe(200);
    });
  });
});
