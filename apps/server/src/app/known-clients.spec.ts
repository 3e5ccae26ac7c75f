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
  WarningDto,
} from '@arrbiter/contracts';
import { KNOWN_CLIENTS, KnownClient } from '@arrbiter/server/known-clients';
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
const sample = (call: { path: string; query?: string }) => (call.query ? `${call.path}?${call.query}` : call.path);

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
  const apply = async (proxyId: string, client: string, grantMissing: boolean, revokeUnused: boolean) =>
    (await admin.post(`/api/admin/v1/proxies/${proxyId}/fit/apply`, { client, grantMissing, revokeUnused }).expect(200))
      .body as ApplyFitResponse;
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
    });
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
      // What the proxy recorded as refused is what the fit calls missing: method and route (or path).
      const warnings = await warningsOf(proxy.id);
      expect({ name, refused: warnings.map((w) => `${w.method} ${(w.route ?? w.path).toLowerCase()}`).sort() }).toEqual(
        {
          name,
          refused: answer.missing.map((m) => `${m.method} ${m.route.toLowerCase()}`).sort(),
        },
      );
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

    const applied = await apply(proxy.id, 'maintainerr', true, true);
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
    const again = await apply(proxy.id, 'maintainerr', true, true);
    expect(again.revision).toBeNull();

    // Restoring the revision before the fit brings the old allowlist back, and the refusals with it.
    const history = (
      (await admin.get(`/api/admin/v1/proxies/${proxy.id}/revisions`).expect(200)).body as Page<RevisionDto>
    ).items;
    expect(history.map((r) => r.kind)).toEqual(['client-fit', 'manual']);
    await admin.post(`/api/admin/v1/proxies/${proxy.id}/revisions/${history[1].id}/restore`).expect(200);
    expect(await allowlist(proxy.id)).toEqual(before);
    expect((await fit(proxy.id)).missing).toEqual(fitBefore.missing);
    expect(await replay('maintainerr-apply', proxy.key, maintainerr)).toHaveLength(12);
  });

  it("revokes Prowlarr's unused grants through overrides that leave the method out, and grants its DELETE", async () => {
    const proxy = await newProxy('prowlarr-apply', 'prowlarr');
    const revoked = await apply(proxy.id, 'prowlarr', false, true);
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
    const granted = await apply(proxy.id, 'prowlarr', true, false);
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
    expect(await problem(400, apply, { client: 'homepage', grantMissing: false, revokeUnused: false })).toContain(
      'Nothing to apply',
    );
    await admin.post(apply, { client: 'homepage', grantMissing: true }).expect(400);
    await admin.post(apply, { client: 'homepage', grantMissing: true, revokeUnused: false, extra: 1 }).expect(400);
    await admin.post(apply, { client: 'titlecardmaker', grantMissing: true, revokeUnused: false }).expect(422);
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
    const file = await admin.get(`/api/admin/v1/templates/${id}/suggested?serviceType=sonarr`).expect(200);
    expect(file.headers['content-disposition']).toBe('attachment; filename="maintainerr.json"');
    expect(file.headers['content-type']).toMatch(/^application\/json/);
    expect(file.text.startsWith('{\n    "/api/v3/command": [\n        "post"\n    ],\n')).toBe(true);
    expect(file.text.endsWith('\n    ]\n}\n')).toBe(true);
    const block = JSON.parse(file.text) as Record<string, string[]>;
    expect(block['/api/v3/series/lookup']).toBeUndefined();
    expect(block['/api/v3/series/{id}']).toEqual(['delete', 'get']);
    const whole = await admin.get(`/api/admin/v1/templates/${id}/suggested`).expect(200);
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
});
