import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type {
  ClientInstructionsDto,
  ConnectClientResponse,
  ProxyConnectionDto,
  ProxyDetailsDto,
  ServiceDto,
  TemplateDto,
} from '@arrbiter/contracts';
import { readTemplateDirectory, TemplatesService } from '@arrbiter/server/templates';
import { seedProxy, seedService } from '@arrbiter/server/testing';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import type { Response } from 'supertest';
import request from 'supertest';
import { AdminClient, found, startTestApp, TestApp } from '../testing/test-app';

/** The real OpenAPI descriptions and community templates, beside the repository (`../shared`), as in CI. */
const SHARED = resolve(__dirname, '../../../../../shared/fixtures');
const OPENAPI = join(SHARED, 'openapi');
const TEMPLATE_REPO = join(SHARED, 'template-repo');

/** Under a `PUBLIC_URL` with a path: the URL base carries its prefix. */
const PUBLIC_URL = 'https://arr.example.com/arrbiter';
const MASKED = '••••';

describe('GET /api/admin/v1/proxies/:id/instructions', () => {
  let t: TestApp;
  let owner: AdminClient;
  let upstream: FakeServarr;
  let service: ServiceDto;
  let templates: TemplateDto[];
  /** A proxy of an app without a template or a known client. */
  let plain: ProxyConnectionDto;
  const as: Record<'viewer' | 'editor', (path: string) => request.Test> = {} as never;

  const instructions = (response: Response) => response.body as ClientInstructionsDto;
  const field = (dto: ClientInstructionsDto, label: string) =>
    found(
      dto.fields.find((candidate) => candidate.label === label),
      label,
    );

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none', PUBLIC_URL });
    owner = await t.admin();
    await owner
      .put(
        '/api/admin/v1/openapi/radarr/v3',
        JSON.parse(readFileSync(join(OPENAPI, 'radarr-v3.json'), 'utf8')) as object,
      )
      .expect(200);
    upstream = await FakeServarr.start({ type: 'radarr' });
    service = await seedService(owner, upstream);
    const store = t.app.get(TemplatesService);
    await store.upsertRepositoryTemplates((await readTemplateDirectory(TEMPLATE_REPO)).templates);
    await store.published();
    templates = (await owner.get('/api/admin/v1/templates').expect(200)).body as TemplateDto[];
    plain = (await seedProxy(owner, { service, app: { name: 'Script', slug: 'script' } })).proxy;
    for (const role of ['viewer', 'editor'] as const) {
      const username = `instructions-${role}`;
      const password = `${role} passphrase for instructions`;
      await owner.post('/api/admin/v1/admins', { username, password, role }).expect(201);
      const cookie = await t.signIn({ username, password });
      as[role] = (path) => request(t.app.getHttpServer()).get(path).set('Cookie', cookie);
    }
  });
  afterAll(async () => {
    await upstream.stop();
    await t.close();
  });

  it("fills a named client's fields with the proxy's URL parts and key, never cached", async () => {
    const response = await owner.get(`/api/admin/v1/proxies/${plain.id}/instructions?client=overseerr`).expect(200);
    expect(response.headers['cache-control']).toBe('no-store');
    const dto = instructions(response);
    expect(dto).toMatchObject({
      serviceId: service.id,
      proxyId: plain.id,
      client: 'overseerr',
      clientName: 'Overseerr',
      specific: true,
    });
    expect(dto.fields).toEqual([
      { label: 'Hostname or IP Address', value: 'arr.example.com', secret: false },
      { label: 'Port', value: '443', secret: false },
      { label: 'Use SSL', value: 'on', secret: false },
      { label: 'API Key', value: plain.key, secret: true },
      { label: 'URL Base', value: '/arrbiter/proxy/script', secret: false },
    ]);
    expect(dto.source.url).toMatch(/^https:\/\/github\.com\/sct\/overseerr\/blob\/[0-9a-f]{40}\//);
  });

  it('takes the Proxy URL exactly as GET proxies/:id shows it', async () => {
    const details = (await owner.get(`/api/admin/v1/proxies/${plain.id}`).expect(200)).body as ProxyDetailsDto;
    const dto = instructions(
      await owner.get(`/api/admin/v1/proxies/${plain.id}/instructions?client=kometa`).expect(200),
    );
    expect(details.proxyUrl).toBe(`${PUBLIC_URL}/proxy/script`);
    expect(field(dto, 'url').value).toBe(details.proxyUrl);
    expect(dto.snippet?.text).toContain(`url: "${details.proxyUrl}"`);
  });

  it('masks the key for a viewer, in fields and snippets alike', async () => {
    for (const client of ['overseerr', 'homepage', 'other']) {
      const response = await as.viewer(`/api/admin/v1/proxies/${plain.id}/instructions?client=${client}`).expect(200);
      expect(response.headers['cache-control']).toBe('no-store');
      expect(response.text).not.toContain(plain.key);
      const secrets = instructions(response).fields.filter((candidate) => candidate.secret);
      expect(secrets.map((candidate) => candidate.value)).toEqual([MASKED]);
      if (client === 'homepage') expect(instructions(response).snippet?.text).toContain(`key: "${MASKED}"`);
    }
  });

  it('shows the key to an editor, as GET proxies/:id does', async () => {
    const response = await as.editor(`/api/admin/v1/proxies/${plain.id}/instructions?client=homepage`).expect(200);
    const dto = instructions(response);
    expect(field(dto, 'key')).toEqual({ label: 'key', value: plain.key, secret: true });
    expect(dto.snippet?.text).toContain(`key: "${plain.key}"`);
  });

  it('answers the generic instructions for an app without a client or a template, and for client=other', async () => {
    for (const query of ['', '?client=other']) {
      const dto = instructions(await owner.get(`/api/admin/v1/proxies/${plain.id}/instructions${query}`).expect(200));
      expect(dto).toMatchObject({ client: 'other', specific: false, proxyId: plain.id });
      expect(field(dto, 'URL').value).toBe(`${PUBLIC_URL}/proxy/script`);
      expect(field(dto, 'API Key')).toEqual({ label: 'API Key', value: plain.key, secret: true });
    }
  });

  it("defaults to the client of the app's template", async () => {
    const template = found(
      templates.find((candidate) => candidate.name === 'homepage'),
      'the homepage template',
    );
    const { proxy } = await seedProxy(owner, {
      service,
      app: { name: 'Dashboard', slug: 'dashboard', templateId: template.id },
    });
    const dto = instructions(await owner.get(`/api/admin/v1/proxies/${proxy.id}/instructions`).expect(200));
    expect(dto).toMatchObject({ client: 'homepage', specific: true });
    expect(dto.snippet?.text).toContain('type: radarr');
    expect(dto.snippet?.text).toContain(`url: "${PUBLIC_URL}/proxy/dashboard"`);
  });

  it('defaults to the client the app was connected as', async () => {
    const connected = (
      await owner
        .post('/api/admin/v1/known-clients/bazarr/connect', { serviceIds: [service.id], slug: 'subtitles' })
        .expect(201)
    ).body as ConnectClientResponse;
    const proxy = found(connected.proxies[0], 'the connected proxy');
    const dto = instructions(await owner.get(`/api/admin/v1/proxies/${proxy.id}/instructions`).expect(200));
    expect(dto).toMatchObject({ client: 'bazarr', specific: true });
    expect(field(dto, 'Base URL').value).toBe('arrbiter/proxy/subtitles');
    expect(field(dto, 'API Key').value).toBe(proxy.key);
    // A named client still wins over the app's.
    const named = instructions(
      await owner.get(`/api/admin/v1/proxies/${proxy.id}/instructions?client=seerr`).expect(200),
    );
    expect(named.client).toBe('seerr');
  });

  it('answers 404 for an unknown proxy or client, 400 for a malformed client', async () => {
    await owner.get('/api/admin/v1/proxies/00000000-0000-4000-8000-000000000000/instructions').expect(404);
    await owner.get(`/api/admin/v1/proxies/${plain.id}/instructions?client=not-a-client`).expect(404);
    await owner.get(`/api/admin/v1/proxies/${plain.id}/instructions?client=Not%20One`).expect(400);
    await as.viewer('/api/admin/v1/proxies/00000000-0000-4000-8000-000000000000/instructions').expect(404);
  });
});
