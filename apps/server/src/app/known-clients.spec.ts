import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type {
  AllowlistResponse,
  ApiError,
  ApplyFitResponse,
  ChangeDto,
  FitResult,
  KnownClientDto,
  KnownClientSummaryDto,
  Page,
  RevisionDto,
  ServiceDto,
  TemplateDto,
  TemplateFitResponse,
  TemplatesFitResponse,
  WarningDto,
} from '@arrbiter/contracts';
import { concreteRequest, KNOWN_CLIENTS, KnownClient } from '@arrbiter/server/known-clients';
import { readTemplateDirectory, TemplatesService } from '@arrbiter/server/templates';
import { WarningRecorder } from '@arrbiter/server/warnings';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { rawRequest } from '../testing/raw-http';
import { AdminClient, found, startTestApp, TestApp } from '../testing/test-app';
import { seedProxy, seedService } from '@arrbiter/server/testing';

/** The real OpenAPI descriptions and community templates, beside the repository (`../shared`), as in CI. */
const SHARED = resolve(__dirname, '../../../../../shared/fixtures');
const OPENAPI = join(SHARED, 'openapi');
const TEMPLATE_REPO = join(SHARED, 'template-repo');

const radarrCalls = (client: KnownClient) => client.services.radarr ?? [];
/** The request as the client sends it: a template path made concrete with its samples, and its query. */
const sample = concreteRequest;

describe('known clients: fit of real allowlists, applied as a revision, and the warnings that name them', () => {
  let t: TestApp;
  let admin: AdminClient;
  let upstream: FakeServarr;
  let service: ServiceDto;
  let base: string;
  let templates: TemplateDto[];

  const templateId = (name: string) =>
    found(
      templates.find((x) => x.name === name),
      name,
    ).id;
  const newProxy = async (slug: string, template: string | null) =>
    (
      await seedProxy(admin, {
        service,
        app: { name: slug, slug, templateId: template === null ? null : templateId(template) },
      })
    ).proxy;
  const fit = async (proxyId: string, query = '') =>
    (await admin.get(`/api/admin/v1/proxies/${proxyId}/fit${query}`).expect(200)).body as FitResult;
  /** `POST …/fit/apply`, answered 200. */
  const apply = async (proxyId: string, body: object) =>
    (await admin.post(`/api/admin/v1/proxies/${proxyId}/fit/apply`, body).expect(200)).body as ApplyFitResponse;
  const named = (items: { method: string; route: string }[]) => items.map(({ method, route }) => ({ method, route }));
  const allowlist = async (proxyId: string) =>
    (await admin.get(`/api/admin/v1/proxies/${proxyId}/allowlist`).expect(200)).body as AllowlistResponse;
  /** Sends each of the client's Radarr calls through the proxy; answers the samples it refused (403). */
  const replay = async (slug: string, key: string, client: KnownClient) => {
    const refused: string[] = [];
    for (const call of radarrCalls(client)) {
      const response = await rawRequest(base, call.method.toUpperCase(), `/proxy/${slug}${sample(call)}`, {
        'x-api-key': key,
      });
      expect({ call: sample(call), status: [200, 403].includes(response.status) }).toEqual({
        call: sample(call),
        status: true,
      });
      if (response.status === 403) refused.push(`${call.method} ${sample(call)}`);
    }
    return refused;
  };
  const warningsOf = async (proxyId: string) => {
    await t.app.get(WarningRecorder).flush();
    return (
      (await admin.get(`/api/admin/v1/warnings?proxyId=${proxyId}&limit=200`).expect(200)).body as Page<WarningDto>
    ).items;
  };

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none' });
    admin = await t.admin();
    base = await t.listen();
    // The real descriptions, stored before the service is registered (so its own is not fetched).
    for (const file of readdirSync(OPENAPI).filter((f) => f.endsWith('.json'))) {
      const [, type, version] = /^([a-z]+)-(v\d+)\.json$/.exec(file) ?? [];
      await admin
        .put(
          `/api/admin/v1/openapi/${type}/${version}`,
          JSON.parse(readFileSync(join(OPENAPI, file), 'utf8')) as object,
        )
        .expect(200);
    }
    upstream = await FakeServarr.start({ type: 'radarr' });
    service = await seedService(admin, upstream);
    const store = t.app.get(TemplatesService);
    await store.upsertRepositoryTemplates((await readTemplateDirectory(TEMPLATE_REPO)).templates);
    await store.published();
    templates = (await admin.get('/api/admin/v1/templates').expect(200)).body as TemplateDto[];
  });
  afterAll(async () => {
    await upstream.stop();
    await t.close();
  });

  it('lists the catalogue with call counts, and details a client with the routes its calls resolve to', async () => {
    const list = (await admin.get('/api/admin/v1/known-clients').expect(200)).body as KnownClientSummaryDto[];
    expect(list.map((c) => c.id)).toEqual(KNOWN_CLIENTS.map((c) => c.id));
    expect(
      found(
        list.find((c) => c.id === 'maintainerr'),
        'maintainerr',
      ),
    ).toMatchObject({
      name: 'Maintainerr',
      templateNames: ['maintainerr'],
      calls: { radarr: 17, sonarr: 20 },
    });
    const bazarr = (await admin.get('/api/admin/v1/known-clients/bazarr').expect(200)).body as KnownClientDto;
    expect(bazarr.services['radarr']?.find((c) => c.path === '/api/v3/MediaCover/42/poster-500.jpg')).toMatchObject({
      method: 'get',
      route: '/api/v3/mediacover/{movieId}/{filename}',
      risk: { sensitive: false, destructive: false, purpose: 'read library' },
    });
    // Every call carries its route's risk, by the permissions lib's rule.
    const maintainerr = (await admin.get('/api/admin/v1/known-clients/maintainerr').expect(200)).body as KnownClientDto;
    expect(
      maintainerr.services['radarr']?.find((c) => c.method === 'post' && c.path === '/api/v3/command')?.risk,
    ).toEqual({
      sensitive: true,
      destructive: false,
      purpose: 'system',
      reason: expect.stringMatching(/\w/),
    });
    expect(maintainerr.services['radarr']?.find((c) => c.method === 'delete')?.risk).toMatchObject({
      destructive: true,
      purpose: 'delete',
    });
    expect(
      Object.values(maintainerr.services)
        .flat()
        .every((c) => typeof c.risk?.sensitive === 'boolean'),
    ).toBe(true);
    expect(maintainerr.instructions).toBe(false);
    expect(bazarr.services['radarr']?.find((c) => c.path === '/signalr/messages/negotiate')).toMatchObject({
      method: 'post',
      route: null,
      outsideApi: true,
      source: { file: 'libs/signalrcore/transport/websockets/websocket_transport.py' },
    });
    await admin.get('/api/admin/v1/known-clients/nope').expect(404);
  });

  it("answers for every client with a Radarr template exactly what the proxy does with the client's calls", async () => {
    const cases = KNOWN_CLIENTS.flatMap((client) =>
      client.templateNames
        .filter((name) => templates.find((x) => x.name === name)?.blocks['radarr'])
        .map((name) => ({ client, name })),
    );
    expect(cases.length).toBeGreaterThanOrEqual(20);
    for (const { client, name } of cases) {
      const slug = `fit-${name}`;
      const proxy = await newProxy(slug, name);
      // By default, the client written for the app's template.
      const answer = await fit(proxy.id);
      expect(answer).toMatchObject({ client: client.id, serviceType: 'radarr', calls: radarrCalls(client).length });
      const refused = await replay(slug, proxy.key, client);
      expect({ name, refused: refused.length }).toEqual({ name, refused: answer.calls - answer.covered });
      // What the proxy recorded as refused is what the fit calls missing: method and route (or path; a
      // path outside the API that the catalogue writes as a template, `/backup/{type}/{file}`, is recorded
      // as sent, and the fit names the template that its grant adds).
      const warnings = await warningsOf(proxy.id);
      const templates = answer.missing.map((m) => m.route).filter((route) => route.includes('{'));
      const recorded = (w: WarningDto) =>
        w.route ??
        templates.find((t) =>
          new RegExp(`^${t.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^/{}]+\}/g, '[^/]+')}$`, 'i').test(w.path),
        ) ??
        w.path;
      expect({ name, refused: warnings.map((w) => `${w.method} ${recorded(w).toLowerCase()}`).sort() }).toEqual({
        name,
        refused: answer.missing.map((m) => `${m.method} ${m.route.toLowerCase()}`).sort(),
      });
      // Each refused call names the client among those that make it.
      for (const warning of warnings) expect(warning.knownCallers?.map((c) => c.client)).toContain(client.id);
    }
  });

  it("grants Maintainerr's missing calls and revokes nothing it uses, as one client-fit revision; restoring brings the old allowlist back", async () => {
    const maintainerr = found(
      KNOWN_CLIENTS.find((c) => c.id === 'maintainerr'),
      'maintainerr',
    );
    const proxy = await newProxy('maintainerr-apply', 'maintainerr');
    const before = await allowlist(proxy.id);
    const fitBefore = await fit(proxy.id, '?client=maintainerr');
    expect(fitBefore.missing).toHaveLength(12);
    expect(await replay('maintainerr-apply', proxy.key, maintainerr)).toHaveLength(12);
    // Sensitive calls are marked, with the reason; the others are not.
    const sensitive = fitBefore.missing.filter((m) => m.risk.sensitive);
    expect(sensitive.map((m) => `${m.method} ${m.route}`)).toContain('post /api/v3/command');
    expect(found(sensitive[0], 'a sensitive call').risk.reason).toMatch(/\w/);
    expect(fitBefore.missing.filter((m) => !m.risk.sensitive).length).toBeGreaterThan(0);

    // Granting the missing calls leaves the sensitive ones out unless named.
    const first = await apply(proxy.id, { client: 'maintainerr', grantMissing: true });
    expect(found(first.revision, 'the revision').summary.added).toHaveLength(12 - sensitive.length);
    expect(first.fit.missing).toEqual(sensitive);
    // A named call that is not a missing sensitive one is refused, and nothing is written.
    const notSensitive = found(
      fitBefore.missing.find((m) => !m.risk.sensitive),
      'a call that is not sensitive',
    );
    expect(
      (
        (
          await admin
            .post(`/api/admin/v1/proxies/${proxy.id}/fit/apply`, {
              client: 'maintainerr',
              grantMissing: true,
              include: { sensitive: [...named(sensitive), { method: notSensitive.method, route: notSensitive.route }] },
            })
            .expect(400)
        ).body as ApiError
      ).message,
    ).toContain(`${notSensitive.method.toUpperCase()} ${notSensitive.route} is not a missing sensitive call`);
    expect((await fit(proxy.id)).missing).toEqual(sensitive);
    const history0 = (
      (await admin.get(`/api/admin/v1/proxies/${proxy.id}/revisions`).expect(200)).body as Page<RevisionDto>
    ).items;
    await admin.post(`/api/admin/v1/proxies/${proxy.id}/revisions/${history0[1].id}/restore`).expect(200);
    expect((await fit(proxy.id)).missing).toEqual(fitBefore.missing);

    const applied = await apply(proxy.id, {
      client: 'maintainerr',
      grantMissing: true,
      include: { sensitive: named(sensitive) },
    });
    const revision = found(applied.revision, 'the revision');
    expect(revision).toMatchObject({ kind: 'client-fit', author: 'admin' });
    expect(revision.summary.text).toBe('Fitted to Maintainerr: 12 grants added');
    expect(revision.summary.added).toHaveLength(12);
    expect(applied.fit).toMatchObject({ calls: 17, covered: 17, missing: [], unused: [] });
    expect(await fit(proxy.id)).toEqual(applied.fit);
    // The proxy lets every call through now.
    expect(await replay('maintainerr-apply', proxy.key, maintainerr)).toEqual([]);
    const changes = ((await admin.get(`/api/admin/v1/changes?limit=20`).expect(200)).body as Page<ChangeDto>).items;
    expect(changes.find((c) => c.objectId === proxy.id && c.action === 'proxy.client-fitted')).toMatchObject({
      actor: 'admin',
      summary: expect.stringContaining('Fitted to Maintainerr: 12 grants added (added POST /api/v3/command'),
    });

    // Nothing left to do: no revision.
    const again = await apply(proxy.id, { client: 'maintainerr', grantMissing: true });
    expect(again.revision).toBeNull();

    // Restoring the revision before the fits brings the old allowlist back, and the refusals with it.
    const history = (
      (await admin.get(`/api/admin/v1/proxies/${proxy.id}/revisions`).expect(200)).body as Page<RevisionDto>
    ).items;
    expect(history.map((r) => r.kind)).toEqual(['client-fit', 'restore', 'client-fit', 'created']);
    await admin.post(`/api/admin/v1/proxies/${proxy.id}/revisions/${history[3].id}/restore`).expect(200);
    expect(await allowlist(proxy.id)).toEqual(before);
    expect((await fit(proxy.id)).missing).toEqual(fitBefore.missing);
    expect(await replay('maintainerr-apply', proxy.key, maintainerr)).toHaveLength(12);
  });

  it('revokes exactly the listed unused grants of Prowlarr through overrides that leave the method out, and grants its sensitive DELETE when named', async () => {
    const proxy = await newProxy('prowlarr-apply', 'prowlarr');
    const before = await fit(proxy.id, '?unusedDays=30');
    expect(before.unused.every((u) => u.lastSeen === null)).toBe(true);
    const revoked = await apply(proxy.id, { client: 'prowlarr', grantMissing: false, revoke: named(before.unused) });
    expect(revoked.fit.missing.map((m) => `${m.method} ${m.route}`)).toEqual(['delete /api/v3/indexer/{id}']);
    expect(revoked.fit.unused).toEqual([]);
    expect(found(revoked.revision, 'revision').summary.removed).toHaveLength(6);
    const list = await allowlist(proxy.id);
    expect(list.overrides).toEqual({
      '/api/v3/config/indexer': [],
      '/api/v3/config/indexer/{id}': [],
      '/api/v3/indexer/action/{name}': [],
      '/api/v3/indexer/testall': [],
      '/api/v3/indexerflag': [],
    });
    expect(
      (await rawRequest(base, 'GET', '/proxy/prowlarr-apply/api/v3/indexerflag', { 'x-api-key': proxy.key })).status,
    ).toBe(403);
    // Its one missing call is sensitive (an indexer's settings carry its keys): granted only when named.
    expect(revoked.fit.missing[0]?.risk).toMatchObject({ sensitive: true, destructive: true, purpose: 'delete' });
    const unnamed = await apply(proxy.id, { client: 'prowlarr', grantMissing: true });
    expect(unnamed.revision).toBeNull();
    expect(unnamed.fit.missing).toEqual(revoked.fit.missing);
    const granted = await apply(proxy.id, {
      client: 'prowlarr',
      grantMissing: true,
      include: { sensitive: [{ method: 'delete', route: '/api/v3/indexer/{indexerId}' }] },
    });
    expect(found(granted.revision, 'revision').summary.added).toEqual([
      { path: '/api/v3/indexer/{id}', method: 'delete' },
    ]);
    expect(
      (await rawRequest(base, 'DELETE', '/proxy/prowlarr-apply/api/v3/indexer/12', { 'x-api-key': proxy.key })).status,
    ).toBe(200);
  });

  it('refuses what cannot be fitted with a clear answer', async () => {
    const plain = await newProxy('no-template', null);
    const problem = async (status: number, path: string, body?: object) =>
      ((await (body ? admin.post(path, body) : admin.get(path)).expect(status)).body as ApiError).message;
    expect(await problem(404, `/api/admin/v1/proxies/${plain.id}/fit`)).toContain('name one with ?client=');
    expect((await fit(plain.id, '?client=homepage')).missing.length).toBeGreaterThan(0);
    const nzb360 = await newProxy('nzb360', 'nzb360');
    expect(await problem(404, `/api/admin/v1/proxies/${nzb360.id}/fit`)).toContain(
      'No known client for the template "nzb360"',
    );
    expect(await problem(404, `/api/admin/v1/proxies/${plain.id}/fit?client=nope`)).toContain('No known client "nope"');
    expect(await problem(422, `/api/admin/v1/proxies/${plain.id}/fit?client=titlecardmaker`)).toBe(
      'TitleCardMaker makes no calls to radarr (it calls sonarr)',
    );
    expect(await problem(400, `/api/admin/v1/proxies/${plain.id}/fit?client=Not%20an%20id`)).toEqual([
      expect.stringContaining('client must be a known client id'),
    ]);
    await admin.get('/api/admin/v1/proxies/00000000-0000-4000-8000-000000000000/fit?client=homepage').expect(404);
    const apply = `/api/admin/v1/proxies/${plain.id}/fit/apply`;
    expect(await problem(400, apply, { client: 'homepage', grantMissing: false })).toContain('Nothing to apply');
    expect(await problem(400, apply, { client: 'homepage', grantMissing: false, revoke: [] })).toContain(
      'Nothing to apply',
    );
    // revokeUnused is gone: the whitelist refuses it.
    await admin.post(apply, { client: 'homepage', grantMissing: false, revokeUnused: true }).expect(400);
    await admin.post(apply, { client: 'homepage' }).expect(400);
    await admin.post(apply, { client: 'homepage', grantMissing: true, extra: 1 }).expect(400);
    await admin.post(apply, { client: 'homepage', grantMissing: true, unusedDays: 0 }).expect(400);
    await admin.post(apply, { client: 'homepage', grantMissing: true, unusedDays: 366 }).expect(400);
    await admin
      .post(apply, { client: 'homepage', grantMissing: true, revoke: [{ method: 'GET', route: '/x' }] })
      .expect(400);
    await admin.get(`/api/admin/v1/proxies/${plain.id}/fit?client=homepage&unusedDays=0`).expect(400);
    await admin.get(`/api/admin/v1/proxies/${plain.id}/fit?client=homepage&unusedDays=366`).expect(400);
    expect(
      await problem(400, apply, {
        client: 'homepage',
        grantMissing: false,
        include: { sensitive: [{ method: 'post', route: '/api/v3/command' }] },
      }),
    ).toContain('needs grantMissing');
    await admin.post(apply, { client: 'titlecardmaker', grantMissing: true }).expect(422);
    // A refused apply writes nothing.
    expect(
      ((await admin.get(`/api/admin/v1/proxies/${plain.id}/revisions`).expect(200)).body as Page<RevisionDto>).items,
    ).toHaveLength(1);
  });

  it("fits a template across its service types, against the server's descriptions, and suggests the fixed file", async () => {
    const id = templateId('maintainerr');
    const response = (await admin.get(`/api/admin/v1/templates/${id}/fit`).expect(200)).body as TemplateFitResponse;
    expect(response).toMatchObject({ client: 'maintainerr', clientName: 'Maintainerr', templateId: id });
    expect(
      response.services.map((s) => [s.serviceType, s.calls, s.covered, s.missing.length, s.unused.length]),
    ).toEqual([
      ['radarr', 17, 5, 12, 0],
      ['sonarr', 20, 9, 11, 1],
    ]);
    const sonarr = found(
      response.services.find((s) => s.serviceType === 'sonarr'),
      'sonarr',
    );
    expect(sonarr.missing.find((m) => m.route === '/api/v3/command')?.risk).toMatchObject({
      sensitive: true,
      purpose: 'system',
    });
    const file = await admin
      .get(`/api/admin/v1/templates/${id}/suggested?serviceType=sonarr&includeSensitive=true`)
      .expect(200);
    expect(file.headers['content-disposition']).toBe('attachment; filename="maintainerr.json"');
    expect(file.headers['content-type']).toMatch(/^application\/json/);
    expect(file.text.startsWith('{\n    "/api/v3/command": [\n        "post"\n    ],\n')).toBe(true);
    expect(file.text.endsWith('\n    ]\n}\n')).toBe(true);
    const block = JSON.parse(file.text) as Record<string, string[]>;
    expect(block['/api/v3/series/lookup']).toBeUndefined();
    expect(block['/api/v3/series/{id}']).toEqual(['delete', 'get']);
    // By default the suggested file leaves the client's sensitive calls out.
    const safe = JSON.parse(
      (await admin.get(`/api/admin/v1/templates/${id}/suggested?serviceType=sonarr`).expect(200)).text,
    ) as Record<string, string[]>;
    expect(safe['/api/v3/command']).toBeUndefined();
    const sensitiveRoutes = sonarr.missing.filter((m) => m.risk.sensitive).map((m) => m.route);
    expect(sensitiveRoutes.length).toBeGreaterThan(0);
    for (const route of sensitiveRoutes) expect(safe[route]).toBeUndefined();
    expect(safe).toEqual(Object.fromEntries(Object.entries(block).filter(([path]) => !sensitiveRoutes.includes(path))));
    await admin.get(`/api/admin/v1/templates/${id}/suggested?includeSensitive=maybe`).expect(400);
    const whole = await admin.get(`/api/admin/v1/templates/${id}/suggested?includeSensitive=true`).expect(200);
    expect(JSON.parse(whole.text)).toEqual({
      name: 'maintainerr',
      blocks: { radarr: expect.objectContaining({ '/api/v3/diskspace': ['get'] }), sonarr: block },
    });
    await admin.get(`/api/admin/v1/templates/${id}/suggested?serviceType=lidarr`).expect(404);
    await admin.get(`/api/admin/v1/templates/${templateId('nzb360')}/fit`).expect(404);
    expect(
      (
        (await admin.get(`/api/admin/v1/templates/${templateId('nzb360')}/fit?client=lunasea`).expect(200))
          .body as TemplateFitResponse
      ).services.map((s) => s.serviceType),
    ).toEqual(['radarr', 'sonarr']);
  });

  it("answers every template's fit in one call, each against its own client or the one named", async () => {
    const all = (await admin.get('/api/admin/v1/templates/fit').expect(200)).body as TemplatesFitResponse;
    const withClient = templates.filter((x) => KNOWN_CLIENTS.some((c) => [c.id, ...c.templateNames].includes(x.name)));
    expect(all.items.map((i) => i.templateId).sort()).toEqual(withClient.map((x) => x.id).sort());
    expect(all.items.some((i) => i.templateId === templateId('nzb360'))).toBe(false);
    const id = templateId('maintainerr');
    expect(all.items.find((i) => i.templateId === id)).toEqual(
      (await admin.get(`/api/admin/v1/templates/${id}/fit`).expect(200)).body,
    );
    const named = (await admin.get('/api/admin/v1/templates/fit?client=lunasea').expect(200))
      .body as TemplatesFitResponse;
    expect(named.items).toHaveLength(templates.length);
    expect(named.items.every((i) => i.client === 'lunasea')).toBe(true);
    await admin.get('/api/admin/v1/templates/fit?client=nope').expect(404);
  });

  it('keeps unused only the grants the proxy has not seen called for the period, and revokes exactly those listed', async () => {
    const proxy = await newProxy('prowlarr-usage', 'prowlarr');
    const unused = (await fit(proxy.id)).unused;
    expect(unused.map((u) => `${u.method} ${u.route}`)).toContain('get /api/v3/indexerflag');
    expect(unused.every((u) => u.lastSeen === null && typeof u.risk.sensitive === 'boolean')).toBe(true);
    // The proxy's own usage has seen one of them: it stays unused by the catalogue, with its last call.
    expect(
      (await rawRequest(base, 'GET', '/proxy/prowlarr-usage/api/v3/indexerflag', { 'x-api-key': proxy.key })).status,
    ).toBe(200);
    const seen = (await fit(proxy.id)).unused.find((u) => u.route === '/api/v3/indexerflag');
    expect(Date.parse(found(seen?.lastSeen ?? undefined, 'lastSeen'))).toBeGreaterThan(Date.now() - 60_000);
    const forPeriod = await fit(proxy.id, '?unusedDays=7');
    expect(forPeriod.unused.map((u) => u.route)).not.toContain('/api/v3/indexerflag');
    expect(forPeriod.unused).toHaveLength(unused.length - 1);
    // Revoking it is refused (409, naming it), and nothing else of the list is revoked either.
    const before = await allowlist(proxy.id);
    const conflict = await admin
      .post(`/api/admin/v1/proxies/${proxy.id}/fit/apply`, {
        client: 'prowlarr',
        grantMissing: false,
        unusedDays: 7,
        revoke: named(unused),
      })
      .expect(409);
    expect((conflict.body as ApiError).message).toContain('GET /api/v3/indexerflag is not an unused grant for 7 days');
    expect(await allowlist(proxy.id)).toEqual(before);
    // A grant that is not granted at all is refused too.
    await admin
      .post(`/api/admin/v1/proxies/${proxy.id}/fit/apply`, {
        client: 'prowlarr',
        grantMissing: false,
        revoke: [{ method: 'delete', route: '/api/v3/movie/{id}' }],
      })
      .expect(409);
    // Exactly the listed one goes; the other unused grants stay.
    const [first, ...rest] = forPeriod.unused;
    const applied = await apply(proxy.id, {
      client: 'prowlarr',
      grantMissing: false,
      unusedDays: 7,
      revoke: named([found(first, 'an unused grant')]),
    });
    expect(found(applied.revision, 'revision').summary.removed).toEqual([{ path: first.route, method: first.method }]);
    expect(applied.fit.unused.map((u) => `${u.method} ${u.route}`).sort()).toEqual(
      rest.map((u) => `${u.method} ${u.route}`).sort(),
    );
  });

  it("revokes nothing while usage counting is off: the proxy's own calls cannot tell what is unused", async () => {
    const off = await startTestApp({ OPENAPI_SOURCES: 'none', USAGE_COUNTING: 'false' });
    try {
      const offAdmin = await off.admin();
      const offService = await seedService(offAdmin, upstream);
      const { proxy } = await seedProxy(offAdmin, {
        service: offService,
        app: { name: 'uncounted', slug: 'uncounted', templateId: null },
        config: { overrides: { '/api/v3/calendar': ['get'] }, active: true },
      });
      const apply = `/api/admin/v1/proxies/${proxy.id}/fit/apply`;
      const refused = await offAdmin
        .post(apply, {
          client: 'homepage',
          grantMissing: false,
          revoke: [{ method: 'get', route: '/api/v3/calendar' }],
        })
        .expect(409);
      expect((refused.body as ApiError).message).toContain('Usage counting is off (USAGE_COUNTING=false)');
      expect(
        ((await offAdmin.get(`/api/admin/v1/proxies/${proxy.id}/allowlist`).expect(200)).body as AllowlistResponse)
          .overrides,
      ).toEqual({ '/api/v3/calendar': ['get'] });
      // Granting still works.
      await offAdmin.post(apply, { client: 'homepage', grantMissing: true }).expect(200);
    } finally {
      await off.close();
    }
  });

  it('resolves the open warnings a template change now covers, as one published change', async () => {
    const store = t.app.get(TemplatesService);
    const local = await store.createLocal('c2-local', { radarr: { '/api/v3/movie': ['get'] } });
    await store.published();
    templates = (await admin.get('/api/admin/v1/templates').expect(200)).body as TemplateDto[];
    const proxy = await newProxy('local-template', 'c2-local');
    const call = (path: string) => rawRequest(base, 'GET', `/proxy/local-template${path}`, { 'x-api-key': proxy.key });
    expect((await call('/api/v3/calendar')).status).toBe(403);
    expect((await call('/api/v3/tag')).status).toBe(403);
    expect((await warningsOf(proxy.id)).map((w) => w.status)).toEqual(['open', 'open']);
    // The template widens to the calendar (as a sync or an import would write it), then is published.
    await store.replaceLocalBlocks(local.id, { radarr: { '/api/v3/movie': ['get'], '/api/v3/calendar': ['get'] } });
    await store.published();
    const after = await warningsOf(proxy.id);
    expect(Object.fromEntries(after.map((w) => [w.path, w.status]))).toEqual({
      '/api/v3/calendar': 'granted',
      '/api/v3/tag': 'open',
    });
    expect((await call('/api/v3/calendar')).status).toBe(200);
  });

  it('resolves the open warnings a grant covers, from a fit or a manual save, in their history', async () => {
    const maintainerr = found(
      KNOWN_CLIENTS.find((c) => c.id === 'maintainerr'),
      'maintainerr',
    );
    const proxy = await newProxy('maintainerr-warnings', 'maintainerr');
    expect(await replay('maintainerr-warnings', proxy.key, maintainerr)).toHaveLength(12);
    const open = await warningsOf(proxy.id);
    expect(open).toHaveLength(12);
    expect(open.every((w) => w.status === 'open')).toBe(true);
    const missing = (await fit(proxy.id)).missing;
    const sensitive = missing.filter((m) => m.risk.sensitive);

    // fit/apply grants the calls that are not sensitive: their warnings are resolved, the others stay open.
    await apply(proxy.id, { client: 'maintainerr', grantMissing: true });
    const afterFit = await warningsOf(proxy.id);
    const key = (w: { method: string; route: string | null; path: string }) =>
      `${w.method} ${(w.route ?? w.path).toLowerCase()}`;
    expect(
      afterFit
        .filter((w) => w.status === 'open')
        .map(key)
        .sort(),
    ).toEqual(sensitive.map((m) => `${m.method} ${m.route.toLowerCase()}`).sort());
    expect(afterFit.filter((w) => w.status === 'granted')).toHaveLength(12 - sensitive.length);

    // A manual configuration save that grants the rest resolves theirs, and that of a call refused just
    // before it (not written yet when the save is made).
    expect(
      (await rawRequest(base, 'GET', '/proxy/maintainerr-warnings/api/v3/calendar', { 'x-api-key': proxy.key })).status,
    ).toBe(403);
    const list = await allowlist(proxy.id);
    const overrides: Record<string, string[]> = { ...list.overrides, '/api/v3/calendar': ['get'] };
    for (const m of sensitive) overrides[m.route] = [...new Set([...(list.effective[m.route] ?? []), m.method])];
    await admin.put(`/api/admin/v1/proxies/${proxy.id}/config`, { overrides, active: true }).expect(200);
    const afterSave = await warningsOf(proxy.id);
    expect(afterSave).toHaveLength(13);
    expect(afterSave.map((w) => w.status)).toEqual(afterSave.map(() => 'granted'));
    const changes = ((await admin.get('/api/admin/v1/changes?limit=100').expect(200)).body as Page<ChangeDto>).items;
    const resolved = changes.filter(
      (c) => c.action === 'warning.resolved' && afterSave.some((w) => w.id === c.objectId),
    );
    expect(resolved).toHaveLength(13);
    expect(resolved[0]).toMatchObject({ actor: 'system', objectType: 'warning', appId: proxy.appId });
    expect(resolved.map((c) => c.summary).join('\n')).toContain("is granted by the proxy's allowlist now");
    // And every call forwards now.
    expect(await replay('maintainerr-warnings', proxy.key, maintainerr)).toEqual([]);
  });
});
