import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type {
  AllowlistResponse,
  AppDto,
  AppliedTemplateChangeDto,
  ChangeDto,
  Page,
  PendingTemplateChangeDto,
  ProxyConnectionDto,
  RevisionDto,
  ServiceDto,
  TemplateDto,
  TemplateRepositoryStatus,
  TemplateSyncReport,
} from '@arrbiter/contracts';
import { parseOpenApi, RouteMatcher, routeShape } from '@arrbiter/server/catalog';
import { TEMPLATE_SYNC_LOCK } from '@arrbiter/server/database';
import { DEFAULT_FETCH_LIMITS, TemplateSyncService } from '@arrbiter/server/template-sync';
import { readTemplateDirectory } from '@arrbiter/server/templates';
import { GitHttpServer, TestGitRepository, seedProxy, seedService } from '@arrbiter/server/testing';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { Client } from 'pg';
import { rawRequest } from '../testing/raw-http';
import { AdminClient, found, startTestApp, TEST_ADMIN, TestApp } from '../testing/test-app';

/** The project's copy of the community template repository (`<serviceType>/<template>.json`). */
const FIXTURE = resolve(__dirname, '../../../../libs/server/template-sync/src/testing/template-repo');
/** The real OpenAPI descriptions, beside the project when they are there (CI has them). */
const SHARED_OPENAPI = resolve(__dirname, '../../../../../shared/fixtures/openapi');

function fixtureNames(): string[] {
  const names = new Set<string>();
  for (const type of readdirSync(FIXTURE))
    for (const file of readdirSync(join(FIXTURE, type))) names.add(file.replace(/\.json$/, ''));
  return [...names].sort();
}

describe('template repository sync', () => {
  let t: TestApp;
  let admin: AdminClient;
  let work: string;
  let upstream: FakeServarr;
  let service: ServiceDto;
  let base: string;

  const settings = (url: string, extra: Partial<TemplateRepositoryStatus> = {}) =>
    admin
      .put('/api/admin/v1/settings/template-repository', { url, ref: '', path: '', intervalMinutes: 0, ...extra })
      .expect(200);
  const sync = async (dryRun = false) =>
    (await admin.post(`/api/admin/v1/templates/sync${dryRun ? '?dryRun=true' : ''}`).expect(200))
      .body as TemplateSyncReport;
  const templates = async () => (await admin.get('/api/admin/v1/templates').expect(200)).body as TemplateDto[];
  const template = async (name: string) => (await templates()).find((x) => x.name === name);
  const revisions = async (proxyId: string) =>
    ((await admin.get(`/api/admin/v1/proxies/${proxyId}/revisions`).expect(200)).body as Page<RevisionDto>).items;
  const appWith = async (slug: string, templateName: string) => {
    const { app, proxy } = await seedProxy(admin, {
      service,
      app: { name: slug, slug, templateId: found(await template(templateName), templateName).id },
    });
    return { app, proxy };
  };
  const call = (slug: string, key: string, method: string, path: string) =>
    rawRequest(base, method, `/proxy/${slug}${path}`, { 'x-api-key': key });

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'arrbiter-sync-'));
    // Local directories set through the admin API must be inside TEMPLATE_ROOT.
    t = await startTestApp({ OPENAPI_SOURCES: 'none', TEMPLATE_ROOT: work });
    admin = await t.admin();
    base = await t.listen();
    upstream = await FakeServarr.start({ type: 'radarr' });
    service = await seedService(admin, upstream);
  });
  afterAll(async () => {
    await upstream.stop();
    await t.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('validates the settings and stores nothing invalid', async () => {
    const before = (await admin.get('/api/admin/v1/settings/template-repository').expect(200))
      .body as TemplateRepositoryStatus;
    expect(before).toMatchObject({ url: '', intervalMinutes: 0, lastSync: null });
    for (const bad of [
      { url: 'ftp://example.com/repo.git' },
      { url: 'https://user:token@example.com/repo.git' },
      { url: 'relative/dir' },
      { path: '../outside' },
      { ref: '--upload-pack=evil' },
      { intervalMinutes: -1 },
      { intervalMinutes: 1.5 },
    ]) {
      await admin
        .put('/api/admin/v1/settings/template-repository', {
          url: 'https://example.com/t.git',
          ref: 'main',
          path: '',
          intervalMinutes: 60,
          ...bad,
        })
        .expect(400);
    }
    await admin.get('/api/admin/v1/settings/template-repository').expect(200, before);
    // Nothing to sync from yet.
    await admin.post('/api/admin/v1/templates/sync').expect(400);
  });

  it('syncs the fixture repository from a directory: every template, every block', async () => {
    const dir = join(work, 'directory');
    cpSync(FIXTURE, dir, { recursive: true });
    await settings(dir);
    const report = await sync();
    expect(report.problems).toEqual([]);
    expect(report.commit).toBeNull();
    expect(report.added.sort()).toEqual(fixtureNames());
    const stored = await templates();
    expect(stored.map((x) => x.name).sort()).toEqual(fixtureNames());
    const homepage = found(
      stored.find((x) => x.name === 'homepage'),
      'homepage',
    );
    expect(homepage.source).toBe('repository');
    expect(homepage.blocks['radarr']['/api/v3/movie']).toEqual(['get']);
    expect(Object.keys(homepage.blocks).sort()).toEqual(
      readdirSync(FIXTURE)
        .filter((type) => existsSync(join(FIXTURE, type, 'homepage.json')))
        .sort(),
    );
    // Syncing again changes nothing.
    const again = await sync();
    expect(again).toMatchObject({ added: [], changed: [], deleted: [], keptRemoved: [], proxies: [] });
    expect(again.unchanged).toBe(fixtureNames().length);
  });

  describe('a local directory set through the admin API', () => {
    const SETTINGS = '/api/admin/v1/settings/template-repository';
    const local = (url: string, path = '') => ({ url, ref: '', path, intervalMinutes: 0 });
    const message = (response: { body: unknown }) => JSON.stringify((response.body as { message: unknown }).message);

    beforeAll(async () => {
      if (!existsSync(join(work, 'directory'))) cpSync(FIXTURE, join(work, 'directory'), { recursive: true });
      await settings(join(work, 'directory'));
    });

    it('refuses a directory outside TEMPLATE_ROOT (/etc), so nothing of it is ever listed', async () => {
      const before = (await admin.get(SETTINGS).expect(200)).body as TemplateRepositoryStatus;
      for (const [url, path] of [
        ['/', 'etc'],
        ['/etc', ''],
      ]) {
        const refused = await admin.put(SETTINGS, local(url, path)).expect(400);
        expect(message(refused)).toContain('TEMPLATE_ROOT');
      }
      await admin.get(SETTINGS).expect(200, before);
      // A sync still reads the directory set before, inside TEMPLATE_ROOT: no folder of /etc is reported.
      const report = await sync(true);
      expect(report.problems).toEqual([]);
    });

    it('refuses a directory that leaves TEMPLATE_ROOT through ".." or a symbolic link', async () => {
      symlinkSync('/etc', join(work, 'to-etc'));
      mkdirSync(join(work, 'links'));
      symlinkSync('../..', join(work, 'links', 'up'));
      for (const [url, path] of [
        [`${work}/..`, ''],
        [`${work}/directory/../..`, 'etc'],
        [join(work, 'to-etc'), ''],
        [work, 'to-etc'],
        [join(work, 'links', 'up'), ''],
      ]) {
        const refused = await admin.put(SETTINGS, local(url, path)).expect(400);
        expect(message(refused)).toContain('TEMPLATE_ROOT');
      }
      // Inside it, even through "..", is fine.
      await admin.put(SETTINGS, local(`${work}/links/..`, 'directory')).expect(200);

      // Checked again when read: a link that pointed inside and now points out is refused at sync.
      symlinkSync(join(work, 'directory'), join(work, 'swapped'));
      await admin.put(SETTINGS, local(join(work, 'swapped'))).expect(200);
      rmSync(join(work, 'swapped'));
      symlinkSync('/etc', join(work, 'swapped'));
      const refused = await admin.post('/api/admin/v1/templates/sync?dryRun=true').expect(502);
      expect(message(refused)).toContain('is not a directory inside TEMPLATE_ROOT');
      await settings(join(work, 'directory'));
    });

    it('never echoes file content in a report: a file it cannot use is named, its bytes never shown', async () => {
      const secret = 'hunter2-canary';
      const dir = join(work, 'secrets');
      mkdirSync(join(dir, 'radarr'), { recursive: true });
      writeFileSync(join(dir, 'radarr', 'broken.json'), `${secret}\n`);
      writeFileSync(join(dir, 'radarr', 'half.json'), `{ "/api/v3/movie": ["get"], "${secret}": `);
      writeFileSync(join(dir, 'radarr', 'methods.json'), JSON.stringify({ '/api/v3/movie': [secret] }));
      writeFileSync(join(dir, 'radarr', 'paths.json'), JSON.stringify({ [`${secret}/x`]: ['get'], x: 7 }));
      writeFileSync(join(dir, 'radarr', 'string.json'), JSON.stringify(secret));
      await settings(dir);
      const report = await sync(true);
      expect(report.problems.map((p) => p.file)).toEqual([
        'radarr/broken.json',
        'radarr/half.json',
        'radarr/methods.json',
        'radarr/paths.json',
        'radarr/string.json',
      ]);
      expect(report.problems[0].reason).toMatch(/^not valid JSON/);
      expect(JSON.stringify(report)).not.toContain(secret);
      expect(JSON.stringify(report)).not.toContain('hunter');
      await settings(join(work, 'directory'));
    });
  });

  describe('over HTTP from a git server', () => {
    let server: GitHttpServer;
    let repo: TestGitRepository;

    beforeAll(async () => {
      repo = await TestGitRepository.create(join(work, 'git', 'templates'), FIXTURE);
      server = await GitHttpServer.start(join(work, 'git'));
      await settings(`${server.url}/templates`, { ref: 'main' });
    });
    afterAll(() => server.stop());

    it('clones the repository and reports the commit', async () => {
      const head = await repo.commit('nothing');
      const report = await sync();
      expect(report.commit).toBe(head);
      expect(report.problems).toEqual([]);
      expect(server.requests).toBeGreaterThan(0);
      const status = (await admin.get('/api/admin/v1/settings/template-repository').expect(200))
        .body as TemplateRepositoryStatus;
      expect(status.lastSync).toMatchObject({ ok: true });
    });

    it('applies a removal to every proxy of every app using the template at once, and holds the addition of the same change', async () => {
      const one = await appWith('sync-one', 'homepage');
      const two = await appWith('sync-two', 'homepage');
      const other = await appWith('sync-other', 'notifiarr');
      expect((await call('sync-one', one.proxy.key, 'GET', '/api/v3/calendar')).status).toBe(200);
      expect((await call('sync-one', one.proxy.key, 'DELETE', '/api/v3/movie/3')).status).toBe(403);

      const file = 'radarr/homepage.json';
      const block = JSON.parse(readFileSync(join(repo.dir, file), 'utf8')) as Record<string, string[]>;
      delete block['/api/v3/calendar'];
      block['/api/v3/movie/{id}'] = ['delete', 'get'];
      repo.write(file, JSON.stringify(block, null, 2));
      await repo.commit('homepage: may delete movies, no calendar');

      // A dry run reports exactly what the sync will do, and changes nothing.
      const preview = await sync(true);
      expect(found(await template('homepage'), 'homepage').blocks['radarr']['/api/v3/calendar']).toEqual(['get']);
      expect((await revisions(one.proxy.id)).map((r) => r.kind)).toEqual(['created']);

      const report = await sync();
      expect({ ...preview, dryRun: false }).toEqual(report);
      const calendar = { path: '/api/v3/calendar', method: 'get' };
      const deleteMovie = { path: '/api/v3/movie/{id}', method: 'delete' };
      expect(report.changed).toEqual([
        { name: 'homepage', blocks: [{ serviceType: 'radarr', added: [], removed: [calendar] }] },
      ]);
      expect(report.pending).toEqual([
        { name: 'homepage', blocks: [{ serviceType: 'radarr', added: [deleteMovie], removed: [calendar] }] },
      ]);
      expect(report.proxies.map((p) => p.appName).sort()).toEqual(['sync-one', 'sync-two']);
      for (const { proxy } of [one, two]) {
        const [latest, ...rest] = await revisions(proxy.id);
        expect(rest.map((r) => r.kind)).toEqual(['created']);
        expect(latest).toMatchObject({ kind: 'template-sync', author: TEST_ADMIN.username, overrides: {} });
        expect(latest.summary).toMatchObject({ added: [], removed: [calendar] });
      }
      expect((await revisions(other.proxy.id)).map((r) => r.kind)).toEqual(['created']);
      // Enforced by the next request: the removal at once, the addition not yet.
      expect((await call('sync-two', two.proxy.key, 'GET', '/api/v3/calendar')).status).toBe(403);
      expect((await call('sync-two', two.proxy.key, 'DELETE', '/api/v3/movie/3')).status).toBe(403);

      // An editor applies the held addition: one more template-sync revision per proxy.
      await admin
        .post(`/api/admin/v1/templates/${found(await template('homepage'), 'homepage').id}/pending/apply`)
        .expect(200);
      for (const { proxy } of [one, two]) {
        const [latest] = await revisions(proxy.id);
        expect(latest).toMatchObject({ kind: 'template-sync', author: TEST_ADMIN.username });
        expect(latest.summary).toMatchObject({ added: [deleteMovie], removed: [] });
      }
      expect((await call('sync-two', two.proxy.key, 'DELETE', '/api/v3/movie/3')).status).toBe(200);
      expect((await call('sync-two', two.proxy.key, 'GET', '/api/v3/calendar')).status).toBe(403);

      const trail = ((await admin.get('/api/admin/v1/changes?objectType=template').expect(200)).body as Page<ChangeDto>)
        .items;
      expect(trail[0]).toMatchObject({ action: 'template.pending-applied', actor: TEST_ADMIN.username });
      expect(trail[1]).toMatchObject({ action: 'template.synced', actor: TEST_ADMIN.username });
      expect(trail[1].summary).toContain('1 changed');
      expect(trail[1].summary).toContain('1 widening held for review');
    });

    describe('a widening of a template some app uses', () => {
      const FILE = 'radarr/kometa.json';
      /** Sensitive grants a repository change could slip in. */
      const WIDER = {
        '/api/v3/config/host': ['get', 'put'],
        '/api/v3/command': ['get', 'post'],
        '/api/v3/system/backup': ['get'],
      };
      const WIDER_GRANTS = [
        { path: '/api/v3/command', method: 'get' },
        { path: '/api/v3/command', method: 'post' },
        { path: '/api/v3/config/host', method: 'get' },
        { path: '/api/v3/config/host', method: 'put' },
        { path: '/api/v3/system/backup', method: 'get' },
      ];
      let original: Record<string, string[]>;
      let used: { app: AppDto; proxy: ProxyConnectionDto };
      const pending = async () =>
        (await admin.get('/api/admin/v1/templates/pending').expect(200)).body as PendingTemplateChangeDto[];
      const effective = async (proxyId: string) =>
        ((await admin.get(`/api/admin/v1/proxies/${proxyId}/allowlist`).expect(200)).body as AllowlistResponse)
          .effective;
      const commitKometa = async (block: Record<string, string[]>, message: string) => {
        repo.write(FILE, JSON.stringify(block, null, 2));
        await repo.commit(message);
      };
      const kometaId = async () => found(await template('kometa'), 'kometa').id;

      beforeAll(async () => {
        original = JSON.parse(readFileSync(join(repo.dir, FILE), 'utf8')) as Record<string, string[]>;
        used = await appWith('held-kometa', 'kometa');
      });

      it('changes no proxy’s allowlist and holds one pending change, shown by GET pending', async () => {
        const before = await effective(used.proxy.id);
        await commitKometa({ ...original, ...WIDER }, 'kometa: host settings, commands, backups');
        const report = await sync();
        expect(report.changed.map((c) => c.name)).not.toContain('kometa');
        expect(report.proxies).toEqual([]);
        expect(report.pending).toEqual([
          { name: 'kometa', blocks: [{ serviceType: 'radarr', added: WIDER_GRANTS, removed: [] }] },
        ]);
        expect(await effective(used.proxy.id)).toEqual(before);
        expect(found(await template('kometa'), 'kometa').blocks['radarr']['/api/v3/config/host']).toBeUndefined();
        expect((await revisions(used.proxy.id)).map((r) => r.kind)).toEqual(['created']);
        for (const [method, path] of [
          ['GET', '/api/v3/config/host'],
          ['POST', '/api/v3/command'],
          ['GET', '/api/v3/system/backup'],
        ])
          expect((await call('held-kometa', used.proxy.key, method, path)).status).toBe(403);

        const rows = await pending();
        expect(rows).toEqual([
          {
            templateId: await kometaId(),
            templateName: 'kometa',
            blocks: [{ serviceType: 'radarr', added: WIDER_GRANTS, removed: [] }],
            commit: report.commit,
            detectedAt: expect.any(String) as string,
            apps: [{ appId: used.app.id, appName: 'held-kometa' }],
            proxies: [
              {
                proxyId: used.proxy.id,
                appId: used.app.id,
                appName: 'held-kometa',
                serviceType: 'radarr',
                added: WIDER_GRANTS,
              },
            ],
          },
        ]);

        // Syncing the same repository again leaves the held change as it is.
        const again = await sync();
        expect(again.pending).toEqual([]);
        expect(again.changed).toEqual([]);
        expect(await pending()).toEqual(rows);
      });

      it('a newer sync replaces the pending change (one per template)', async () => {
        await commitKometa({ ...original, '/api/v3/config/host': ['get'] }, 'kometa: host settings only');
        const report = await sync();
        expect(report.pending).toEqual([
          {
            name: 'kometa',
            blocks: [{ serviceType: 'radarr', added: [{ path: '/api/v3/config/host', method: 'get' }], removed: [] }],
          },
        ]);
        const rows = await pending();
        expect(rows).toHaveLength(1);
        expect(rows[0]).toMatchObject({
          templateName: 'kometa',
          commit: report.commit,
          blocks: [{ serviceType: 'radarr', added: [{ path: '/api/v3/config/host', method: 'get' }], removed: [] }],
        });
        expect((await call('held-kometa', used.proxy.key, 'GET', '/api/v3/config/host')).status).toBe(403);
      });

      it('dismiss drops it, and the same change is not raised again', async () => {
        const before = await effective(used.proxy.id);
        await admin.post(`/api/admin/v1/templates/${await kometaId()}/pending/dismiss`).expect(204);
        expect(await pending()).toEqual([]);
        await admin.post(`/api/admin/v1/templates/${await kometaId()}/pending/dismiss`).expect(404);
        await admin.post(`/api/admin/v1/templates/${await kometaId()}/pending/apply`).expect(404);
        expect((await sync()).pending).toEqual([]);
        expect(await pending()).toEqual([]);
        expect(await effective(used.proxy.id)).toEqual(before);
        expect((await revisions(used.proxy.id)).map((r) => r.kind)).toEqual(['created']);
      });

      it('apply grants the held change to the template and its proxies, with a template-sync revision', async () => {
        await commitKometa({ ...original, ...WIDER }, 'kometa: host settings, commands, backups again');
        expect((await sync()).pending.map((p) => p.name)).toEqual(['kometa']);
        const applied = (await admin.post(`/api/admin/v1/templates/${await kometaId()}/pending/apply`).expect(200))
          .body as AppliedTemplateChangeDto;
        expect(applied.template.blocks['radarr']).toMatchObject(WIDER);
        expect(applied.proxies).toEqual([
          { proxyId: used.proxy.id, appId: used.app.id, appName: 'held-kometa', added: WIDER_GRANTS, removed: [] },
        ]);
        expect(await effective(used.proxy.id)).toMatchObject(WIDER);
        const [latest] = await revisions(used.proxy.id);
        expect(latest).toMatchObject({ kind: 'template-sync', author: TEST_ADMIN.username });
        expect(latest.summary).toMatchObject({ added: WIDER_GRANTS, removed: [] });
        expect((await call('held-kometa', used.proxy.key, 'GET', '/api/v3/system/backup')).status).not.toBe(403);
        expect(await pending()).toEqual([]);
        // The template now matches the repository.
        const again = await sync();
        expect(again.pending).toEqual([]);
        expect(again.changed).toEqual([]);
      });

      it('a removal applies at once', async () => {
        const { '/api/v3/tag': _tag, ...narrower } = original;
        await commitKometa(narrower, 'kometa: no tags, no host settings, commands or backups');
        const report = await sync();
        expect(report.pending).toEqual([]);
        expect(report.changed).toEqual([
          {
            name: 'kometa',
            blocks: [
              {
                serviceType: 'radarr',
                added: [],
                removed: [...WIDER_GRANTS, { path: '/api/v3/tag', method: 'get' }],
              },
            ],
          },
        ]);
        const now = await effective(used.proxy.id);
        expect(now['/api/v3/tag']).toBeUndefined();
        expect(now['/api/v3/config/host']).toBeUndefined();
        expect((await call('held-kometa', used.proxy.key, 'GET', '/api/v3/system/backup')).status).toBe(403);
        expect(await pending()).toEqual([]);
      });

      it('an unused template takes a widening at once', async () => {
        const postarr = JSON.parse(readFileSync(join(repo.dir, 'radarr/postarr.json'), 'utf8')) as Record<
          string,
          string[]
        >;
        expect(found(await template('postarr'), 'postarr').appCount).toBe(0);
        repo.write('radarr/postarr.json', JSON.stringify({ ...postarr, ...WIDER }, null, 2));
        await repo.commit('postarr: host settings, commands, backups');
        const report = await sync();
        expect(report.pending).toEqual([]);
        expect(report.changed).toEqual([
          { name: 'postarr', blocks: [{ serviceType: 'radarr', added: WIDER_GRANTS, removed: [] }] },
        ]);
        expect(found(await template('postarr'), 'postarr').blocks['radarr']).toMatchObject(WIDER);
        expect(await pending()).toEqual([]);
      });
    });

    it('keeps a deleted template that apps use (marked removed, access unchanged) and deletes an unused one', async () => {
      const { proxy } = await appWith('keeps', 'lunasea');
      expect((await call('keeps', proxy.key, 'GET', '/api/v3/movie')).status).toBe(200);
      for (const type of readdirSync(repo.dir).filter((d) => !d.startsWith('.'))) {
        for (const name of ['lunasea', 'cross-seed'])
          if (existsSync(join(repo.dir, type, `${name}.json`))) repo.remove(`${type}/${name}.json`);
      }
      await repo.commit('remove lunasea and cross-seed');
      const report = await sync();
      expect(report.keptRemoved).toEqual(['lunasea']);
      expect(report.deleted).toEqual(['cross-seed']);
      expect(report.proxies).toEqual([]);
      expect(await template('lunasea')).toMatchObject({ removed: true, appCount: 1 });
      expect(await template('cross-seed')).toBeUndefined();
      expect((await call('keeps', proxy.key, 'GET', '/api/v3/movie')).status).toBe(200);
    });

    it('reports a malformed file with its name and reason and keeps what was stored for it', async () => {
      const before = await template('bazarr');
      repo.write('radarr/bazarr.json', '{ "/api/v3/movie": ["get"');
      repo.write('radarr/brand-new.json', JSON.stringify({ '/api/v3/movie': ['get'] }));
      repo.write('plex/anything.json', '{}');
      await repo.commit('a broken file, a new one, an unknown service type');
      const report = await sync();
      expect(report.problems).toEqual(
        expect.arrayContaining([
          { file: 'radarr/bazarr.json', reason: expect.stringMatching(/^not valid JSON/) as string },
          { file: 'plex/', reason: expect.stringContaining('unknown service type') as string },
        ]),
      );
      expect(report.added).toEqual(['brand-new']);
      expect(report.changed).toEqual([]);
      expect(found(await template('bazarr'), 'bazarr').blocks).toEqual(found(before, 'bazarr before').blocks);
    });

    it('changes nothing when the repository cannot be reached', async () => {
      const count = (await templates()).length;
      await settings('http://127.0.0.1:9/templates.git', { ref: 'main' });
      const response = await admin.post('/api/admin/v1/templates/sync').expect(502);
      expect((response.body as { message: string }).message).toMatch(/^Templates unchanged: cannot fetch/);
      expect((await templates()).length).toBe(count);
      const status = (await admin.get('/api/admin/v1/settings/template-repository').expect(200))
        .body as TemplateRepositoryStatus;
      expect(status.lastSync).toMatchObject({ ok: false });
      const trail = ((await admin.get('/api/admin/v1/changes?objectType=template').expect(200)).body as Page<ChangeDto>)
        .items;
      expect(trail[0].action).toBe('template.sync-failed');
      await settings(`${server.url}/templates`, { ref: 'main' });
    });

    it('gives up on a repository that is too large or too slow, changing nothing', async () => {
      const syncer = t.app.get(TemplateSyncService);
      const count = (await templates()).length;
      syncer.limits = { timeoutMs: 60_000, maxBytes: 2_000 };
      const large = await admin.post('/api/admin/v1/templates/sync').expect(502);
      expect((large.body as { message: string }).message).toContain('the repository is larger than');

      const silent = createServer(() => undefined);
      await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
      syncer.limits = { timeoutMs: 300, maxBytes: 50 * 1024 * 1024 };
      await settings(`http://127.0.0.1:${(silent.address() as AddressInfo).port}/templates.git`, { ref: 'main' });
      const slow = await admin.post('/api/admin/v1/templates/sync').expect(502);
      expect((slow.body as { message: string }).message).toContain('no answer within 0.3 s');
      silent.closeAllConnections();
      silent.close();
      syncer.limits = DEFAULT_FETCH_LIMITS;
      await settings(`${server.url}/templates`, { ref: 'main' });
      expect((await templates()).length).toBe(count);
    });

    it('refuses a sync while another runs, and changes nothing for it', async () => {
      const results = await Promise.all([
        admin.post('/api/admin/v1/templates/sync'),
        admin.post('/api/admin/v1/templates/sync'),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      const refused = found(
        results.find((r) => r.status === 409),
        'the refused sync',
      );
      expect((refused.body as { message: string }).message).toContain('already running');
    });

    (process.env['DATABASE_URL'] ? it : it.skip)(
      'refuses a sync while another replica holds the lock (PostgreSQL advisory lock)',
      async () => {
        const other = new Client({ connectionString: t.config.databaseUrl });
        await other.connect();
        try {
          await other.query('SELECT pg_advisory_lock($1)', [TEMPLATE_SYNC_LOCK]);
          await admin.post('/api/admin/v1/templates/sync').expect(409);
          await other.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_SYNC_LOCK]);
          await admin.post('/api/admin/v1/templates/sync').expect(200);
        } finally {
          await other.end();
        }
      },
    );
  });

  it('saves an app’s effective allowlist as a local template that syncs never overwrite', async () => {
    const { app, proxy } = await appWith('local-source', 'homepage');
    await admin
      .put(`/api/admin/v1/proxies/${proxy.id}/config`, { overrides: { '/api/v3/calendar': ['get'] }, active: true })
      .expect(200);
    const effective = (
      (await admin.get(`/api/admin/v1/proxies/${proxy.id}/allowlist`).expect(200)).body as AllowlistResponse
    ).effective;
    const saved = (
      await admin.post(`/api/admin/v1/apps/${app.id}/save-as-template`, { name: 'my-homepage' }).expect(201)
    ).body as TemplateDto;
    expect(saved).toMatchObject({
      name: 'my-homepage',
      source: 'local',
      removed: false,
      blocks: { radarr: effective },
    });
    await admin.post(`/api/admin/v1/apps/${app.id}/save-as-template`, { name: 'my-homepage' }).expect(409);
    await admin.post(`/api/admin/v1/apps/${app.id}/save-as-template`, { name: '../evil' }).expect(400);

    // A repository file with the same name is reported and skipped; the local template stays as it was.
    const dir = join(work, 'with-clash');
    cpSync(FIXTURE, dir, { recursive: true });
    cpSync(join(FIXTURE, 'radarr', 'homepage.json'), join(dir, 'radarr', 'my-homepage.json'));
    await settings(dir);
    const report = await sync();
    expect(report.problems).toContainEqual({
      file: '*/my-homepage.json',
      reason: 'a local template has this name: the local one is kept',
    });
    expect(found(await template('my-homepage'), 'my-homepage').blocks).toEqual({ radarr: effective });
  });

  (existsSync(SHARED_OPENAPI) ? it : it.skip)(
    'resolves every template path the real catalogs know to that catalog route',
    async () => {
      const { templates: set } = await readTemplateDirectory(FIXTURE);
      let checked = 0;
      for (const file of readdirSync(SHARED_OPENAPI)) {
        const [type] = file.split('-');
        const routes = parseOpenApi(JSON.parse(readFileSync(join(SHARED_OPENAPI, file), 'utf8')));
        const matcher = new RouteMatcher(routes);
        const known = new Set(routes.map((r) => routeShape(r.path)));
        for (const blocks of set.values()) {
          for (const [path, methods] of Object.entries(blocks[type] ?? {})) {
            if (!known.has(routeShape(path))) continue;
            // A concrete request: every parameter an integer, as Servarr ids are.
            const segments = path
              .split('/')
              .filter(Boolean)
              .map((s) => (s.startsWith('{') ? '42' : s));
            for (const method of methods) {
              const route = matcher.resolve(segments, method as 'get');
              expect({ path, method, resolved: route?.shape }).toEqual({ path, method, resolved: routeShape(path) });
              checked += 1;
            }
          }
        }
      }
      expect(checked).toBeGreaterThan(100);
    },
  );
});

describe('template repository in a directory the operator names (TEMPLATE_REPOSITORY), without TEMPLATE_ROOT', () => {
  const SETTINGS = '/api/admin/v1/settings/template-repository';
  let t: TestApp;
  let admin: AdminClient;
  let work: string;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'arrbiter-operator-dir-'));
    cpSync(FIXTURE, join(work, 'templates'), { recursive: true });
    t = await startTestApp({ OPENAPI_SOURCES: 'none', TEMPLATE_REPOSITORY: join(work, 'templates') });
    admin = await t.admin();
  });
  afterAll(async () => {
    await t.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('syncs the operator’s directory and refuses any other local directory set through the admin API', async () => {
    // Saving the operator's directory (here: to sync on request only) is allowed: it is the operator's choice.
    await admin.put(SETTINGS, { url: join(work, 'templates'), ref: '', path: '', intervalMinutes: 0 }).expect(200);
    const report = (await admin.post('/api/admin/v1/templates/sync').expect(200)).body as TemplateSyncReport;
    expect(report.problems).toEqual([]);
    expect(report.added.sort()).toEqual(fixtureNames());

    for (const url of [FIXTURE, '/etc', work]) {
      const refused = await admin.put(SETTINGS, { url, ref: '', path: '', intervalMinutes: 0 }).expect(400);
      expect(JSON.stringify((refused.body as { message: unknown }).message)).toContain('TEMPLATE_ROOT is not set');
    }
    expect(((await admin.get(SETTINGS).expect(200)).body as TemplateRepositoryStatus).url).toBe(
      join(work, 'templates'),
    );
  });
});

describe('a template repository that needs a token (TEMPLATE_REPOSITORY_TOKEN)', () => {
  const TOKEN = 'tok_canary_Hq27pV9s';
  let t: TestApp;
  let admin: AdminClient;
  let echo: ReturnType<typeof createServer>;
  let url: string;
  const received: string[] = [];

  beforeAll(async () => {
    // A git host that asks for credentials, then fails and echoes what it was sent, in every spelling.
    echo = createServer((req, res) => {
      const authorization = req.headers.authorization;
      if (!authorization) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
        return;
      }
      received.push(authorization);
      const sent = authorization.replace(/^Basic /, '');
      const decoded = Buffer.from(sent, 'base64').toString();
      res
        .writeHead(500, `Echo ${decoded} ${sent} ${encodeURIComponent(TOKEN)}`, { 'content-type': 'text/plain' })
        .end(`you sent ${decoded} ${authorization}`);
    });
    await new Promise<void>((done) => echo.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/templates.git`;
    t = await startTestApp({ OPENAPI_SOURCES: 'none', TEMPLATE_REPOSITORY: url, TEMPLATE_REPOSITORY_TOKEN: TOKEN });
    admin = await t.admin();
  });
  afterAll(async () => {
    await t.close();
    echo.closeAllConnections();
    echo.close();
  });

  it('sends the token to the repository and never shows it: not in the sync error, the last sync, the trail or the settings', async () => {
    const spellings = [
      TOKEN,
      encodeURIComponent(TOKEN),
      Buffer.from(`x-access-token:${TOKEN}`).toString('base64').replace(/=+$/, ''),
    ];
    const failed = await admin.post('/api/admin/v1/templates/sync').expect(502);
    expect(received).toContain(`Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`);
    expect((failed.body as { message: string }).message).toMatch(/^Templates unchanged: cannot fetch .*Echo/);
    const status = (await admin.get('/api/admin/v1/settings/template-repository').expect(200))
      .body as TemplateRepositoryStatus;
    expect(status).toMatchObject({ url, lastSync: { ok: false } });
    const trail = (await admin.get('/api/admin/v1/changes?objectType=template').expect(200)).body as Page<ChangeDto>;
    expect(trail.items[0].action).toBe('template.sync-failed');
    for (const text of [JSON.stringify(failed.body), JSON.stringify(status), JSON.stringify(trail)])
      for (const spelling of spellings) expect(text).not.toContain(spelling);
  });
});
