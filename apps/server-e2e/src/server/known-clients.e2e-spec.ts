import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type {
  ApplyFitResponse,
  KnownClientDto,
  KnownClientSummaryDto,
  Page,
  ProxyConnectionDto,
  ProxyFitResponse,
  TemplateDto,
  TemplateFitResponse,
  WarningDto,
} from '@arrbiter/contracts';
import { createTestDatabase, eventually, TestDatabase, seedProxy } from '@arrbiter/server/testing';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { AdminHttpClient } from '../support/admin-client';
import { ServerProcess, startServer } from '../support/server-process';
import { syncTemplates } from '../support/templates';

const ADMIN = { ADMIN_USERNAME: 'admin', ADMIN_PASSWORD: 'known clients suite passphrase' };
/** The real OpenAPI descriptions and community templates, beside the repository (`../shared`), as in CI. */
const SHARED = resolve(__dirname, '../../../../../shared/fixtures');
const TEMPLATE_REPO = join(SHARED, 'template-repo');

/** Maintainerr's Radarr calls that its community template refuses (read from its source: radarr.helper.ts, servarr-api). */
const MAINTAINERR_REFUSED: [string, string][] = [
  ['GET', '/api/v3/qualityProfile'],
  ['GET', '/api/v3/rootfolder'],
  ['GET', '/api/v3/diskspace'],
  ['POST', '/api/v3/tag'],
  ['GET', '/api/v3/movie/123'],
  ['PUT', '/api/v3/movie/123'],
  ['PUT', '/api/v3/movie/editor'],
  ['GET', '/api/v3/moviefile?movieId=123'],
  ['DELETE', '/api/v3/moviefile/456'],
  ['POST', '/api/v3/exclusions/bulk'],
  ['GET', '/api/v3/history/movie?movieId=123'],
  ['POST', '/api/v3/command'],
];

describe('known clients over HTTP: the production server, the fake Servarr and the community templates', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let radarr: FakeServarr;
  let admin: AdminHttpClient;
  let templates: TemplateDto[];
  let proxy: ProxyConnectionDto;

  const call = async (method: string, path: string) => {
    const response = await fetch(`${server.url}/proxy/maintainerr${path}`, {
      method,
      headers: { 'x-api-key': proxy.key },
    });
    await response.arrayBuffer();
    return response.status;
  };
  const template = (name: string) => {
    const found = templates.find((t) => t.name === name);
    if (!found) throw new Error(`the ${name} template did not sync`);
    return found;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    radarr = await FakeServarr.start({ type: 'radarr', instanceName: 'Movies' });
    server = await startServer({ ...database.env, ...ADMIN, OPENAPI_SOURCES: 'none', TEMPLATE_ROOT: TEMPLATE_REPO });
    admin = await AdminHttpClient.signIn(server, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD);
    // The real descriptions of Radarr and Sonarr, before the service is registered.
    for (const [type, version] of [
      ['radarr', 'v3'],
      ['sonarr', 'v3'],
      ['sonarr', 'v5'],
    ])
      await admin.request(
        'PUT',
        `/api/admin/v1/openapi/${type}/${version}`,
        JSON.parse(readFileSync(join(SHARED, 'openapi', `${type}-${version}.json`), 'utf8')),
      );
    templates = await syncTemplates(admin, TEMPLATE_REPO);
    ({ proxy } = await seedProxy(admin, {
      upstream: radarr,
      app: { name: 'Maintainerr', slug: 'maintainerr', templateId: template('maintainerr').id },
    }));
  });
  afterAll(async () => {
    await server?.stop();
    await radarr?.stop();
    await database?.drop();
  });

  it('serves the catalogue from the build: list and detail', async () => {
    const list = await admin.request<KnownClientSummaryDto[]>('GET', '/api/admin/v1/known-clients');
    expect(list.length).toBeGreaterThanOrEqual(20);
    expect(list.find((c) => c.id === 'prowlarr')).toMatchObject({
      name: 'Prowlarr (application sync)',
      source: { repository: 'https://github.com/Prowlarr/Prowlarr' },
      calls: { radarr: 7, sonarr: 7 },
    });
    const maintainerr = await admin.request<KnownClientDto>('GET', '/api/admin/v1/known-clients/maintainerr');
    expect(maintainerr.services['radarr']).toHaveLength(17);
    expect(
      maintainerr.services['radarr']?.find((c) => c.method === 'put' && c.path === '/api/v3/movie/123'),
    ).toMatchObject({
      route: '/api/v3/movie/{id}',
      source: { function: 'RadarrApi.updateMovie' },
    });
    await admin.request('GET', '/api/admin/v1/known-clients/unknown', undefined, [404]);
  });

  it('fits the proxy to Maintainerr, the proxy refuses exactly those calls, and the warnings name Maintainerr', async () => {
    const fit = await admin.request<ProxyFitResponse>('GET', `/api/admin/v1/proxies/${proxy.id}/fit`);
    expect(fit).toMatchObject({ client: 'maintainerr', serviceType: 'radarr', calls: 17, covered: 5, unused: [] });
    expect(fit.missing.map((m) => [m.method.toUpperCase(), m.sample])).toEqual(MAINTAINERR_REFUSED);
    for (const [method, path] of MAINTAINERR_REFUSED)
      expect({ method, path, status: await call(method, path) }).toEqual({ method, path, status: 403 });
    expect(await call('GET', '/api/v3/movie?tmdbId=603')).toBe(200);

    let warnings: WarningDto[] = [];
    await eventually('the refused calls are recorded', async () => {
      warnings = (await admin.request<Page<WarningDto>>('GET', `/api/admin/v1/warnings?proxyId=${proxy.id}&limit=100`))
        .items;
      return warnings.length === MAINTAINERR_REFUSED.length;
    });
    for (const warning of warnings)
      expect(warning.knownCallers?.find((c) => c.client === 'maintainerr')).toMatchObject({
        clientName: 'Maintainerr',
      });
    // Notifiarr makes the call too, through the starr library: the citation names the library's release.
    expect(warnings.find((w) => w.method === 'post' && w.route === '/api/v3/exclusions/bulk')?.knownCallers).toEqual([
      {
        client: 'maintainerr',
        clientName: 'Maintainerr',
        source: {
          file: 'apps/server/src/modules/api/servarr-api/helpers/radarr.helper.ts',
          function: 'RadarrApi.addImportExclusion',
        },
      },
      {
        client: 'notifiarr',
        clientName: 'Notifiarr (client)',
        source: {
          file: 'radarr/exclusions.go',
          function: 'Radarr.AddExclusionsContext',
          repository: 'https://github.com/golift/starr',
          ref: 'v1.3.0',
          commit: '612c6e1f603c44d7dd48ea0a07f383af3c2366ea',
        },
      },
    ]);
  });

  it('applies the fit as one client-fit revision, its sensitive calls named, after which every call gets through', async () => {
    const before = await admin.request<ProxyFitResponse>('GET', `/api/admin/v1/proxies/${proxy.id}/fit?unusedDays=30`);
    const sensitive = before.missing.filter((m) => m.risk.sensitive).map(({ method, route }) => ({ method, route }));
    expect(sensitive).toContainEqual({ method: 'post', route: '/api/v3/command' });
    const applied = await admin.request<ApplyFitResponse>('POST', `/api/admin/v1/proxies/${proxy.id}/fit/apply`, {
      client: 'maintainerr',
      grantMissing: true,
      include: { sensitive },
      revoke: before.unused.map(({ method, route }) => ({ method, route })),
    });
    expect(applied.revision).toMatchObject({
      kind: 'client-fit',
      author: 'admin',
      summary: { text: 'Fitted to Maintainerr: 12 grants added' },
    });
    expect(applied.fit).toMatchObject({ calls: 17, covered: 17, missing: [], unused: [] });
    for (const [method, path] of MAINTAINERR_REFUSED)
      expect({ method, path, status: await call(method, path) }).toEqual({ method, path, status: 200 });
  });

  it("fits a template per service type and downloads the fixed file, or the repository's own when nothing changes", async () => {
    const fit = await admin.request<TemplateFitResponse>(
      'GET',
      `/api/admin/v1/templates/${template('prowlarr').id}/fit`,
    );
    expect(fit.services.map((s) => [s.serviceType, s.missing.map((m) => `${m.method} ${m.route}`)])).toEqual([
      ['radarr', ['delete /api/v3/indexer/{id}']],
      ['sonarr', ['delete /api/v3/indexer/{id}']],
    ]);
    const fixed = await fetch(
      `${server.url}/api/admin/v1/templates/${template('prowlarr').id}/suggested?serviceType=radarr&includeSensitive=true`,
      {
        headers: { cookie: admin.cookieHeader },
      },
    );
    expect(fixed.status).toBe(200);
    expect(fixed.headers.get('content-disposition')).toBe('attachment; filename="prowlarr.json"');
    expect(await fixed.text()).toBe(
      `${JSON.stringify(
        {
          '/api/v3/indexer': ['get', 'post'],
          '/api/v3/indexer/schema': ['get'],
          '/api/v3/indexer/test': ['post'],
          '/api/v3/indexer/{id}': ['delete', 'get', 'put'],
        },
        null,
        4,
      )}\n`,
    );
    // By default the sensitive DELETE (an indexer's settings carry its keys) is left out.
    const safe = await fetch(
      `${server.url}/api/admin/v1/templates/${template('prowlarr').id}/suggested?serviceType=radarr`,
      { headers: { cookie: admin.cookieHeader } },
    );
    expect((JSON.parse(await safe.text()) as Record<string, string[]>)['/api/v3/indexer/{id}']).toEqual(['get', 'put']);
    const unchanged = await fetch(
      `${server.url}/api/admin/v1/templates/${template('cleanuparr').id}/suggested?serviceType=radarr`,
      {
        headers: { cookie: admin.cookieHeader },
      },
    );
    expect(await unchanged.text()).toBe(readFileSync(join(TEMPLATE_REPO, 'radarr/cleanuparr.json'), 'utf8'));
  });
});
