import type {
  AllowlistResponse,
  AppDto,
  ChangeDto,
  ConnectClientResponse,
  Page,
  ProxyConnectionDto,
  ProxyDto,
  RevisionDto,
  TemplateDto,
} from '@arrbiter/contracts';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { AdminClient, found, startTestApp, TestApp } from '../testing/test-app';
import { seedProxy, seedService } from '@arrbiter/server/testing';

const MISSING = '3f2b1c9e-8d7a-4b6c-9e5f-1a2b3c4d5e6f';

describe('cloning an app', () => {
  let t: TestApp;
  let admin: AdminClient;
  let radarr: FakeServarr;
  let sonarr: FakeServarr;
  let source: AppDto;
  let template: TemplateDto;
  /** The source's proxies: on radarr (rate-limited, unscrubbed, learning, rotated with grace) and on sonarr (inactive). */
  let movies: ProxyConnectionDto;
  let series: ProxyConnectionDto;
  let movieServiceId: string;

  const proxiesOf = async (appId: string) =>
    (await admin.get(`/api/admin/v1/apps/${appId}/proxies`).expect(200)).body as ProxyDto[];
  const appCount = async () =>
    ((await admin.get('/api/admin/v1/apps?limit=200').expect(200)).body as Page<AppDto>).items.length;

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none' });
    admin = await t.admin();
    [radarr, sonarr] = await Promise.all([
      FakeServarr.start({ type: 'radarr', instanceName: 'Movies' }),
      FakeServarr.start({ type: 'sonarr', instanceName: 'Series' }),
    ]);
    const [movieService, seriesService] = [await seedService(admin, radarr), await seedService(admin, sonarr)];
    movieServiceId = movieService.id;

    // A local template, made from an app granted the movie list.
    const { app: seed } = await seedProxy(admin, {
      service: movieService,
      app: { name: 'Seed', slug: 'seed' },
      config: { overrides: { '/api/v3/movie': ['get'] }, active: true },
    });
    template = (await admin.post(`/api/admin/v1/apps/${seed.id}/save-as-template`, { name: 'Movies only' }).expect(201))
      .body as TemplateDto;

    ({ app: source, proxy: movies } = await seedProxy(admin, {
      service: movieService,
      app: { name: 'Overseerr', slug: 'overseerr', templateId: template.id },
    }));
    ({ proxy: series } = await seedProxy(admin, { service: seriesService, app: source }));
    await admin
      .put(`/api/admin/v1/proxies/${movies.id}/config`, {
        overrides: { '/api/v3/movie': [], '/api/v3/calendar': ['get'] },
        active: true,
        rateLimit: { perMinute: 120, burst: 10 },
        scrub: false,
      })
      .expect(200);
    await admin
      .put(`/api/admin/v1/proxies/${series.id}/config`, { overrides: { '/api/v3/series': ['get'] }, active: false })
      .expect(200);
    await admin
      .post(`/api/admin/v1/proxies/${movies.id}/learning`, { until: new Date(t.clock.now() + 3_600_000).toISOString() })
      .expect(200);
    await admin.post(`/api/admin/v1/proxies/${movies.id}/rotate-key`, { graceMinutes: 60 }).expect(200);
  });
  afterAll(async () => {
    await Promise.all([radarr?.stop(), sonarr?.stop()]);
    await t?.close();
  });

  it('refuses a bad body, naming the field, and an unknown app', async () => {
    const refused = async (body: object) =>
      JSON.stringify((await admin.post(`/api/admin/v1/apps/${source.id}/clone`, body).expect(400)).body);
    expect(await refused({ slug: 'copy' })).toContain('name');
    expect(await refused({ name: 'Copy' })).toContain('slug');
    expect(await refused({ name: 'Copy', slug: 'Not A Slug' })).toContain('slug must be 1-63 lower-case letters');
    expect(await refused({ name: '', slug: 'copy' })).toContain('name must be longer than or equal to 1 characters');
    expect(await refused({ name: 'Copy', slug: 'copy', templateId: null })).toContain(
      'property templateId should not exist',
    );
    await admin.post(`/api/admin/v1/apps/${MISSING}/clone`, { name: 'Copy', slug: 'copy' }).expect(404);
    await admin.post('/api/admin/v1/apps/not-a-uuid/clone', { name: 'Copy', slug: 'copy' }).expect(400);
  });

  it('answers 409 for a slug in use, and writes nothing', async () => {
    const before = await appCount();
    const response = await admin
      .post(`/api/admin/v1/apps/${source.id}/clone`, { name: 'Copy', slug: 'seed' })
      .expect(409);
    expect((response.body as { message: string }).message).toBe('The slug "seed" is already used by another app');
    expect(await appCount()).toBe(before);
    const changes = (await admin.get('/api/admin/v1/changes?limit=100').expect(200)).body as Page<ChangeDto>;
    expect(changes.items.filter((change) => change.action === 'app.cloned')).toEqual([]);
  });

  it('copies the template, the state and every proxy with its configuration, each with a new key', async () => {
    const copy = (
      await admin
        .post(`/api/admin/v1/apps/${source.id}/clone`, { name: 'Overseerr 4K', slug: 'overseerr-4k' })
        .expect(201)
    ).body as AppDto;
    expect(copy).toMatchObject({
      name: 'Overseerr 4K',
      slug: 'overseerr-4k',
      templateId: template.id,
      templateName: 'Movies only',
      active: true,
      proxyCount: 2,
    });
    expect(copy.id).not.toBe(source.id);

    // By service: the copies are made in one transaction, at one time.
    const byService = (a: ProxyDto, b: ProxyDto) => a.serviceId.localeCompare(b.serviceId);
    const copies = (await proxiesOf(copy.id)).sort(byService);
    const originals = (await proxiesOf(source.id)).sort(byService);
    const comparable = (p: ProxyDto) => ({
      serviceId: p.serviceId,
      active: p.active,
      rateLimit: p.rateLimit,
      scrub: p.scrub,
    });
    expect(copies.map(comparable)).toEqual(originals.map(comparable));
    // What belongs to the source's client stays with it: its learning mode and its previous key.
    expect(originals.find((p) => p.id === movies.id)).toMatchObject({ learningUntil: expect.any(String) });
    expect(originals.find((p) => p.id === movies.id)?.previousKey).not.toBeNull();
    for (const p of copies) expect([p.learningUntil, p.previousKey]).toEqual([null, null]);

    for (const [original, cloned] of originals.map((p, i) => [p, copies[i]] as const)) {
      const [before, after] = await Promise.all(
        [original, cloned].map(
          async (p) =>
            (await admin.get(`/api/admin/v1/proxies/${p.id}/allowlist`).expect(200)).body as AllowlistResponse,
        ),
      );
      expect(after).toEqual(before);
      const [originalKey, clonedKey] = await Promise.all(
        [original, cloned].map(
          async (p) => ((await admin.get(`/api/admin/v1/proxies/${p.id}`).expect(200)).body as ProxyConnectionDto).key,
        ),
      );
      expect(clonedKey).toMatch(/^[0-9a-f]{32}$/);
      expect(clonedKey).not.toBe(originalKey);
    }

    // On the proxy route at once: the copy's key opens its own slug, never the source's, and the reverse.
    const moviesCopy = found(
      copies.find((p) => p.serviceId === movies.serviceId),
      'the copy of the movie proxy',
    );
    const copyKey = ((await admin.get(`/api/admin/v1/proxies/${moviesCopy.id}`).expect(200)).body as ProxyConnectionDto)
      .key;
    const sourceKey = ((await admin.get(`/api/admin/v1/proxies/${movies.id}`).expect(200)).body as ProxyConnectionDto)
      .key;
    const call = async (slug: string, key: string, path: string) =>
      (await t.http.get(`/proxy/${slug}${path}`).set('X-Api-Key', key)).status;
    expect(await call('overseerr-4k', copyKey, '/api/v3/calendar')).toBe(200);
    // The override that denies the template's grant was copied too.
    expect(await call('overseerr-4k', copyKey, '/api/v3/movie')).toBe(403);
    expect(await call('overseerr', copyKey, '/api/v3/calendar')).toBe(401);
    expect(await call('overseerr-4k', sourceKey, '/api/v3/calendar')).toBe(401);

    // Each copy starts its history with a revision saying where it came from, and recent changes say it all.
    const revisions = (await admin.get(`/api/admin/v1/proxies/${moviesCopy.id}/revisions`).expect(200))
      .body as Page<RevisionDto>;
    expect(revisions.items).toHaveLength(1);
    expect(revisions.items[0]).toMatchObject({ kind: 'created', author: 'admin', active: true });
    expect(revisions.items[0].summary.text).toContain('Proxy cloned from "Overseerr"');
    const changes = (await admin.get(`/api/admin/v1/changes?appId=${copy.id}&limit=100`).expect(200))
      .body as Page<ChangeDto>;
    expect(changes.items.map((change) => change.action).sort()).toEqual([
      'app.cloned',
      'proxy.created',
      'proxy.created',
    ]);
    expect(changes.items.find((change) => change.action === 'app.cloned')?.summary).toBe(
      'App "Overseerr 4K" (/proxy/overseerr-4k) cloned from "Overseerr" (/proxy/overseerr) with template "Movies only", active',
    );
  });

  it('clones an app without proxies, inactive as its source', async () => {
    const bare = (
      await admin
        .post('/api/admin/v1/apps', { name: 'Bare', slug: 'bare', templateId: null, active: false })
        .expect(201)
    ).body as AppDto;
    const copy = (
      await admin.post(`/api/admin/v1/apps/${bare.id}/clone`, { name: 'Bare 2', slug: 'bare-2' }).expect(201)
    ).body as AppDto;
    expect(copy).toMatchObject({ templateId: null, active: false, proxyCount: 0 });
  });

  it('keeps the known client a connected app was connected as', async () => {
    const connected = (
      await admin
        .post('/api/admin/v1/known-clients/overseerr/connect', { serviceIds: [movieServiceId], slug: 'connected' })
        .expect(201)
    ).body as ConnectClientResponse;
    expect(connected.app.knownClientId).toBe('overseerr');
    const copy = (
      await admin
        .post(`/api/admin/v1/apps/${connected.app.id}/clone`, { name: 'Connected 2', slug: 'connected-2' })
        .expect(201)
    ).body as AppDto;
    expect(copy).toMatchObject({ knownClientId: 'overseerr', proxyCount: 1 });
  });
});
