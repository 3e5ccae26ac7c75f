import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type {
  AllowlistResponse,
  AppDto,
  ConnectClientRequest,
  ConfigDocument,
  ConnectClientResponse,
  FitResult,
  KnownClientDto,
  Page,
  ProxyDto,
  RevisionDto,
  ServiceDto,
  TemplateDto,
} from '@arrbiter/contracts';
import { grantsOf, routeShape } from '@arrbiter/shared/allowlist-rules';
import { readTemplateDirectory, TemplatesService } from '@arrbiter/server/templates';
import { seedService } from '@arrbiter/server/testing';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { rawRequest } from '../testing/raw-http';
import { AdminClient, found, startTestApp, TestApp } from '../testing/test-app';

/** The real OpenAPI descriptions and community templates, beside the repository (`../shared`), as in CI. */
const SHARED = resolve(__dirname, '../../../../../shared/fixtures');
const OPENAPI = join(SHARED, 'openapi');
const TEMPLATE_REPO = join(SHARED, 'template-repo');

const COMMAND = { method: 'post', route: '/api/v3/command' };
const has = (allowlist: Record<string, string[]>, method: string, route: string) =>
  Object.entries(allowlist).some(
    ([path, methods]) => routeShape(path) === routeShape(route) && methods.includes(method),
  );

describe('connect a known client: one app, one proxy per service, the client-fit allowlist', () => {
  let t: TestApp;
  let admin: AdminClient;
  let base: string;
  const upstreams: FakeServarr[] = [];
  let radarr: ServiceDto;
  let sonarr: ServiceDto;
  let lidarr: ServiceDto;
  let templates: TemplateDto[];
  let overseerr: KnownClientDto;

  const connect = async (body: ConnectClientRequest, client = 'overseerr') =>
    (await admin.post(`/api/admin/v1/known-clients/${client}/connect`, body).expect(201)).body as ConnectClientResponse;
  const allowlist = async (proxyId: string) =>
    (await admin.get(`/api/admin/v1/proxies/${proxyId}/allowlist`).expect(200)).body as AllowlistResponse;
  const apps = async () => ((await admin.get('/api/admin/v1/apps?limit=100').expect(200)).body as Page<AppDto>).items;
  /** Overseerr's calls to a type, as the catalogue resolves them, split by risk. */
  const callsOf = (type: string, sensitive: boolean) =>
    (overseerr.services[type] ?? [])
      .filter((call) => call.risk.sensitive === sensitive)
      .map((call) => ({ method: call.method, route: call.route ?? call.path }));

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none' });
    admin = await t.admin();
    base = await t.listen();
    for (const file of readdirSync(OPENAPI).filter((f) => f.endsWith('.json'))) {
      const [, type, version] = /^([a-z]+)-(v\d+)\.json$/.exec(file) ?? [];
      await admin
        .put(
          `/api/admin/v1/openapi/${type}/${version}`,
          JSON.parse(readFileSync(join(OPENAPI, file), 'utf8')) as object,
        )
        .expect(200);
    }
    for (const type of ['radarr', 'sonarr', 'lidarr'])
      upstreams.push(await FakeServarr.start({ type, current: type === 'lidarr' ? 'v1' : 'v3' }));
    [radarr, sonarr, lidarr] = await Promise.all(upstreams.map((upstream) => seedService(admin, upstream)));
    const store = t.app.get(TemplatesService);
    await store.upsertRepositoryTemplates((await readTemplateDirectory(TEMPLATE_REPO)).templates);
    await store.published();
    templates = (await admin.get('/api/admin/v1/templates').expect(200)).body as TemplateDto[];
    overseerr = (await admin.get('/api/admin/v1/known-clients/overseerr').expect(200)).body as KnownClientDto;
  });
  afterAll(async () => {
    await Promise.all(upstreams.map((upstream) => upstream.stop()));
    await t.close();
  });

  it('checks everything before writing: each refusal leaves no app and no proxy behind', async () => {
    await connect({ serviceIds: [radarr.id], slug: 'taken' });
    const before = await apps();
    const url = '/api/admin/v1/known-clients/overseerr/connect';
    const refusals: [string, object, number, RegExp?][] = [
      ['an unknown client', { serviceIds: [radarr.id] }, 404],
      ['no service', { serviceIds: [] }, 400],
      ['seven services', { serviceIds: Array.from({ length: 7 }, () => crypto.randomUUID()) }, 400],
      ['a service twice', { serviceIds: [radarr.id, radarr.id] }, 400],
      ['an unknown service', { serviceIds: [radarr.id, crypto.randomUUID()] }, 404],
      ['a type the client does not call', { serviceIds: [radarr.id, lidarr.id] }, 400, /it calls .*radarr/],
      ['an unknown template', { serviceIds: [radarr.id], templateId: crypto.randomUUID() }, 404],
      [
        'a call that is not sensitive',
        { serviceIds: [radarr.id], include: { sensitive: [{ method: 'get', route: '/api/v3/movie' }] } },
        400,
        /GET \/api\/v3\/movie is not a sensitive call/,
      ],
      [
        'a sensitive call the client does not make',
        { serviceIds: [radarr.id], include: { sensitive: [{ method: 'get', route: '/api/v3/system/backup' }] } },
        400,
      ],
      [
        'a service outside serviceIds',
        { serviceIds: [radarr.id], include: { sensitive: [{ ...COMMAND, serviceId: sonarr.id }] } },
        400,
      ],
      ['a name too long', { serviceIds: [radarr.id], name: 'x'.repeat(101) }, 400],
      ['a bad slug', { serviceIds: [radarr.id], slug: 'Not A Slug' }, 400],
      ['a taken slug', { serviceIds: [radarr.id, sonarr.id], slug: 'taken' }, 409],
      ['an unknown field', { serviceIds: [radarr.id], knownClientId: 'x' }, 400],
    ];
    for (const [what, body, status, message] of refusals) {
      const response = await admin.post(
        what === 'an unknown client' ? url.replace('overseerr', 'no-such-client') : url,
        body,
      );
      expect({ what, status: response.status }).toEqual({ what, status });
      if (message) expect(JSON.stringify(response.body)).toMatch(message);
    }
    expect(await apps()).toEqual(before);
  });

  it('defaults the slug to the client id, then -2, and the name to the client name', async () => {
    const first = await connect({ serviceIds: [radarr.id] });
    const second = await connect({ serviceIds: [radarr.id] });
    expect([first.app.slug, second.app.slug]).toEqual(['overseerr', 'overseerr-2']);
    expect(second.app).toMatchObject({ name: 'Overseerr', knownClientId: 'overseerr', templateId: null });
    const named = await connect({ serviceIds: [radarr.id], name: 'Requests', slug: 'requests' });
    expect(named.app).toMatchObject({ name: 'Requests', slug: 'requests' });
  });

  it('gives connects racing for the default slug one each', async () => {
    const raced = await Promise.all([1, 2, 3, 4].map(() => connect({ serviceIds: [radarr.id], name: 'Raced' })));
    const slugs = raced.map((r) => r.app.slug);
    expect(new Set(slugs).size).toBe(4);
    for (const slug of slugs) expect(slug).toMatch(/^overseerr(-\d+)?$/);
  });

  it('answers the app, a key, a URL and instructions per proxy; the first revision is client-fit', async () => {
    const response = await admin
      .post('/api/admin/v1/known-clients/overseerr/connect', {
        serviceIds: [radarr.id, sonarr.id],
        slug: 'two-services',
      })
      .expect(201);
    // The keys are in the answer: never kept by a cache.
    expect(response.headers['cache-control']).toBe('no-store');
    const answer = response.body as ConnectClientResponse;
    expect(answer.app).toMatchObject({ slug: 'two-services', knownClientId: 'overseerr', proxyCount: 2 });
    expect(
      answer.proxies.map(({ serviceId, serviceType, serviceName }) => [serviceId, serviceType, serviceName]),
    ).toEqual([
      [radarr.id, 'radarr', radarr.name],
      [sonarr.id, 'sonarr', sonarr.name],
    ]);
    for (const proxy of answer.proxies) {
      expect(proxy.proxyUrl).toBe(`${t.config.publicUrl}/proxy/two-services`);
      expect(proxy.key).toMatch(/\S{20,}/);
      const { items } = (await admin.get(`/api/admin/v1/proxies/${proxy.id}/revisions`).expect(200))
        .body as Page<RevisionDto>;
      expect(items.map((r) => r.kind)).toEqual(['client-fit']);
      expect(proxy.granted).toBe(grantsOf((await allowlist(proxy.id)).effective).length);
    }
    expect(answer.instructions.map((i) => [i.serviceId, i.proxyId, i.client])).toEqual(
      answer.proxies.map((p) => [p.serviceId, p.id, 'overseerr']),
    );
    const got = (await admin.get(`/api/admin/v1/apps/${answer.app.id}`).expect(200)).body as AppDto;
    expect(got.knownClientId).toBe('overseerr');
    // Not settable afterwards.
    await admin.patch(`/api/admin/v1/apps/${answer.app.id}`, { knownClientId: 'homepage' }).expect(400);
  });

  it('grants every call that is not sensitive, and a sensitive one only when named', async () => {
    expect(callsOf('radarr', true)).toContainEqual(COMMAND);
    const plain = await connect({ serviceIds: [radarr.id, sonarr.id], slug: 'plain' });
    const ticked = await connect({
      serviceIds: [radarr.id, sonarr.id],
      slug: 'ticked',
      include: { sensitive: [{ ...COMMAND, serviceId: radarr.id }] },
    });
    for (const [answer, commandOnRadarr] of [
      [plain, false],
      [ticked, true],
    ] as const) {
      for (const proxy of answer.proxies) {
        const { effective, template } = await allowlist(proxy.id);
        expect(template).toEqual({});
        for (const call of callsOf(proxy.serviceType, false))
          expect([call, has(effective, call.method, call.route)]).toEqual([call, true]);
        const granted = commandOnRadarr && proxy.serviceType === 'radarr';
        expect([proxy.serviceType, has(effective, 'post', COMMAND.route)]).toEqual([proxy.serviceType, granted]);
        // Through the proxy: the sensitive call forwards only when named, a call the client does not make never.
        const send = (method: string, path: string) =>
          rawRequest(base, method, `/proxy/${answer.app.slug}${path}`, { 'x-api-key': proxy.key });
        expect((await send('POST', '/api/v3/command')).status).toBe(granted ? 200 : 403);
        expect((await send('GET', '/api/v3/system/status')).status).toBe(200);
        expect((await send('DELETE', `/api/v3/${proxy.serviceType === 'radarr' ? 'movie' : 'series'}/1`)).status).toBe(
          403,
        );
      }
    }
    // Without serviceId, a named call applies to every service.
    const both = await connect({ serviceIds: [radarr.id, sonarr.id], slug: 'both', include: { sensitive: [COMMAND] } });
    for (const proxy of both.proxies)
      expect(has((await allowlist(proxy.id)).effective, 'post', COMMAND.route)).toBe(true);
  });

  it('with a template: its block plus the client calls', async () => {
    const homepage = found(
      templates.find((x) => x.name === 'homepage' && x.blocks['radarr']),
      'homepage',
    );
    const answer = await connect({ serviceIds: [radarr.id], templateId: homepage.id, slug: 'with-template' });
    expect(answer.app.templateId).toBe(homepage.id);
    const { effective, template } = await allowlist(answer.proxies[0].id);
    expect(template).toEqual(homepage.blocks['radarr']);
    for (const grant of grantsOf(homepage.blocks['radarr'] ?? {}))
      expect([grant, has(effective, grant.method, grant.path)]).toEqual([grant, true]);
    for (const call of callsOf('radarr', false))
      expect([call, has(effective, call.method, call.route)]).toEqual([call, true]);
  });

  it("fits the proxy to the app's known client by default: nothing missing but the sensitive calls", async () => {
    const answer = await connect({ serviceIds: [sonarr.id], slug: 'fit-default' });
    const fit = (await admin.get(`/api/admin/v1/proxies/${answer.proxies[0].id}/fit`).expect(200)).body as FitResult;
    expect(fit.client).toBe('overseerr');
    expect(fit.missing.map((m) => ({ method: m.method, route: m.route }))).toEqual(
      callsOf('sonarr', true).filter(
        (c, i, all) => all.findIndex((d) => d.method === c.method && d.route === c.route) === i,
      ),
    );
    expect(fit.missing.every((m) => m.risk.sensitive)).toBe(true);
    // And with an app made by hand, the fit still needs a client or a template.
    const manual = (
      await admin
        .post('/api/admin/v1/apps', { name: 'Manual', slug: 'manual', templateId: null, active: true })
        .expect(201)
    ).body as AppDto;
    expect(manual.knownClientId).toBeNull();
    const proxy = (await admin.post(`/api/admin/v1/apps/${manual.id}/proxies`, { serviceId: sonarr.id }).expect(201))
      .body as ProxyDto;
    await admin.get(`/api/admin/v1/proxies/${proxy.id}/fit`).expect(404);
  });
  it('CONFIG_FILE `client:` resolves once, at creation, to the calls connect grants; export writes both; imports keep the stored overrides', async () => {
    const document = {
      version: 1,
      apps: [{ slug: 'declared', name: 'Declared', client: 'overseerr', proxies: [{ service: radarr.baseUrl }] }],
    };
    await admin.post('/api/admin/v1/config/import', document).expect(200);
    const app = found(
      (await apps()).find((a) => a.slug === 'declared'),
      'declared',
    );
    expect(app.knownClientId).toBe('overseerr');
    const [proxy] = (await admin.get(`/api/admin/v1/apps/${app.id}/proxies`).expect(200)).body as ProxyDto[];
    const connected = await connect({ serviceIds: [radarr.id], slug: 'compare' });
    const overrides = (await allowlist(proxy.id)).overrides;
    expect(overrides).toEqual((await allowlist(connected.proxies[0].id)).overrides);
    expect(has(overrides, 'post', COMMAND.route)).toBe(false);

    const exportedApp = () =>
      admin
        .get('/api/admin/v1/config/export')
        .expect(200)
        .then(({ body }) => (body as ConfigDocument).apps?.find((a) => a.slug === 'declared'));
    expect(await exportedApp()).toMatchObject({ client: 'overseerr', proxies: [{ overrides }] });

    // An edit of the stored overrides survives the same document imported again (it names no overrides).
    const edited = { ...overrides, '/api/v3/movie': ['get'] };
    await admin.put(`/api/admin/v1/proxies/${proxy.id}/config`, { overrides: edited, active: true }).expect(200);
    await admin.post('/api/admin/v1/config/import', document).expect(200);
    expect((await allowlist(proxy.id)).overrides).toEqual((await exportedApp())?.proxies?.[0]?.overrides);
    expect(has((await allowlist(proxy.id)).effective, 'post', '/api/v3/movie')).toBe(false);

    // Refused with a clear message, nothing written.
    const refused = async (doc: object) =>
      ((await admin.post('/api/admin/v1/config/import', doc).expect(400)).body as { message: string[] }).message.join(
        '\n',
      );
    expect(
      await refused({ version: 1, apps: [{ slug: 'unknown-client', name: 'X', client: 'nope', proxies: [] }] }),
    ).toMatch(/apps\[0\]\.client: no known client "nope"/);
    expect(
      await refused({
        version: 1,
        apps: [{ slug: 'wrong-type', name: 'X', client: 'overseerr', proxies: [{ service: lidarr.baseUrl }] }],
      }),
    ).toMatch(
      /apps\[0\]\.proxies\[0\]\.service: Overseerr makes no calls to lidarr: it calls (radarr, sonarr|sonarr, radarr)/,
    );
    expect((await apps()).map((a) => a.slug)).not.toEqual(expect.arrayContaining(['unknown-client', 'wrong-type']));
  });
});
