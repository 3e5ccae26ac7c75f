import type { OpenAPIObject, OperationObject, ParameterObject, SchemaObject } from '@nestjs/swagger';
import { validateOpenApi } from '../testing/openapi-validator';
import { registeredRoutes } from '../testing/registered-routes';
import { AdminClient, startTestApp, TestApp } from '../testing/test-app';

/** The admin API's path families: what the description must cover. */
const ADMIN_ROUTE = /^\/api\/(admin\/v1|auth)(\/|$)/;

/** `/api/admin/v1/proxies/:id` → `/api/admin/v1/proxies/{id}`. */
const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

describe('the admin API description (/api/docs)', () => {
  let t: TestApp;
  let admin: AdminClient;
  let document: OpenAPIObject;

  const operation = (method: string, path: string): OperationObject => {
    const found = (document.paths[path] as Record<string, OperationObject> | undefined)?.[method];
    if (!found) throw new Error(`${method.toUpperCase()} ${path} is not described`);
    return found;
  };
  const schema = (name: string) => document.components?.schemas?.[name] as SchemaObject;

  beforeAll(async () => {
    t = await startTestApp();
    admin = await t.admin();
    document = (await admin.get('/api/docs/openapi.json').expect(200).expect('Content-Type', /json/))
      .body as OpenAPIObject;
  });
  afterAll(() => t.close());

  it('is for administrators only: the description, its viewer and the viewer’s files answer 401 without a session', async () => {
    for (const path of ['/api/docs', '/api/docs/openapi.json', '/api/docs/init.js', '/api/docs/swagger-ui-bundle.js'])
      expect([path, (await t.http.get(path)).status]).toEqual([path, 401]);
  });

  it('is valid OpenAPI 3', () => {
    const verdict = validateOpenApi(document);
    expect(verdict.errors).toBeUndefined();
    expect(verdict).toMatchObject({ valid: true, version: '3.0' });
  });

  it('describes every admin route that the application registers, and nothing else', () => {
    const registered = registeredRoutes(t.app)
      .filter((route) => ADMIN_ROUTE.test(route.path))
      .map((route) => `${route.method} ${openApiPath(route.path)}`);
    // Whatever controllers the application has: the walk above finds them; a few known ones prove it does.
    expect(registered).toEqual(
      expect.arrayContaining([
        'POST /api/auth/sign-in',
        'POST /api/admin/v1/proxies/{id}/rotate-key',
        'DELETE /api/admin/v1/proxies/{id}/previous-key',
        'POST /api/admin/v1/apps/{id}/clone',
      ]),
    );
    const described = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'].includes(key))
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(described.sort()).toEqual([...new Set(registered)].sort());
    // Not the proxy route, the probes or the description itself.
    expect(Object.keys(document.paths).filter((path) => !ADMIN_ROUTE.test(path))).toEqual([]);
  });

  it('says which routes need no session, and what the others answer without one', () => {
    expect(document.components?.securitySchemes?.['session']).toEqual({
      type: 'apiKey',
      in: 'cookie',
      name: 'arrbiter_session',
      description: expect.any(String),
    });
    expect(document.components?.securitySchemes?.['token']).toMatchObject({ type: 'http', scheme: 'bearer' });
    // A session or an API token; the token on /api/admin/v1/* only, and never for accounts or tokens.
    expect(document.security).toEqual([{ session: [] }, { token: [] }]);
    expect(operation('get', '/api/auth/session').security).toEqual([{ session: [] }]);
    expect(operation('post', '/api/admin/v1/tokens').security).toEqual([{ session: [] }]);
    expect(operation('post', '/api/auth/sign-in').security).toEqual([]);
    const rotate = operation('post', '/api/admin/v1/proxies/{id}/rotate-key');
    expect(rotate.security).toBeUndefined();
    expect(Object.keys(rotate.responses).sort()).toEqual(['200', '400', '401', '403', '404']);
    expect(rotate.responses['200']).toEqual({ description: 'OK (JSON)' });
    expect(Object.keys(operation('delete', '/api/admin/v1/proxies/{id}/previous-key').responses).sort()).toEqual([
      '204',
      '400',
      '401',
      '403',
      '404',
    ]);
  });

  it('names the least role of each operation, and the 403 of a role above viewer', () => {
    const role = (method: string, path: string) =>
      (operation(method, path) as OperationObject & { 'x-arrbiter-role'?: string })['x-arrbiter-role'];
    expect(role('get', '/api/admin/v1/apps')).toBe('viewer');
    expect(role('post', '/api/admin/v1/apps')).toBe('editor');
    expect(role('post', '/api/admin/v1/admins')).toBe('owner');
    expect(role('post', '/api/auth/sign-in')).toBeUndefined();
    expect(operation('get', '/api/admin/v1/proxies/{id}/key').responses['403']).toEqual({
      description: 'Needs the editor role',
    });
    expect(operation('get', '/api/admin/v1/apps').responses['403']).toBeUndefined();
    expect(operation('post', '/api/admin/v1/apps').responses['403']).toEqual({
      description: 'The Origin (or Referer) is not the dashboard’s; or needs the editor role',
    });
  });

  it('describes request bodies from the DTOs’ validation: types, bounds, patterns, what is required and what may be null', () => {
    const rotate = operation('post', '/api/admin/v1/proxies/{id}/rotate-key');
    expect(rotate.requestBody).toMatchObject({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/RotateKeyDto' } } },
    });
    expect(schema('RotateKeyDto')).toEqual({
      type: 'object',
      properties: { graceMinutes: { type: 'integer', minimum: 0, maximum: 10080 } },
    });
    expect(schema('CloneAppDto')).toEqual({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 100 },
        slug: { type: 'string', pattern: '^[a-z0-9][a-z0-9-]{0,62}$' },
      },
      required: ['name', 'slug'],
    });
    // Nested objects by reference; null allowed where the DTO skips null.
    const config = schema('ProxyConfigDto');
    expect(config.required?.sort()).toEqual(['active', 'overrides']);
    expect(config.properties?.['rateLimit']).toMatchObject({
      nullable: true,
      allOf: [{ $ref: '#/components/schemas/RateLimitDto' }],
    });
    expect(schema('RateLimitDto').properties?.['perMinute']).toEqual({ type: 'integer', minimum: 1, maximum: 6000 });
    // Present but possibly null (`templateId: null` is "no template").
    expect(schema('CreateAppDto').required).toContain('templateId');
    expect(schema('CreateAppDto').properties?.['templateId']).toMatchObject({ nullable: true, format: 'uuid' });
  });

  it('groups operations by what they act on', () => {
    expect(operation('post', '/api/admin/v1/apps/{id}/clone').tags).toEqual(['apps']);
    expect(operation('put', '/api/admin/v1/settings/proxy-defaults').tags).toEqual(['settings']);
    expect(operation('post', '/api/auth/sign-in').tags).toEqual(['auth']);
  });

  it('describes query parameters and path parameters', () => {
    const list = operation('get', '/api/admin/v1/apps');
    const parameters = (list.parameters ?? []) as ParameterObject[];
    expect(parameters.map((p) => [p.in, p.name, p.required]).sort()).toEqual(
      [
        ['query', 'cursor', false],
        ['query', 'limit', false],
        ['query', 'q', false],
        ['query', 'state', false],
        ['query', 'templateId', false],
      ].sort(),
    );
    expect(parameters.find((p) => p.name === 'state')?.schema).toMatchObject({ enum: ['active', 'inactive'] });
    expect(operation('post', '/api/admin/v1/apps/{id}/clone').parameters).toEqual([
      expect.objectContaining({ in: 'path', name: 'id', required: true }),
    ]);
  });

  it('serves a viewer that loads only its own files (the Content-Security-Policy allows nothing else)', async () => {
    const page = await admin
      .get('/api/docs')
      .expect(200)
      .expect('Content-Type', /text\/html/);
    expect(page.headers['content-security-policy']).toContain("script-src 'self'");
    const sources = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((match) => match[1]);
    expect(sources.sort()).toEqual(['/api/docs/init.js', '/api/docs/swagger-ui-bundle.js', '/api/docs/swagger-ui.css']);
    for (const source of sources) {
      const asset = await admin.get(source).expect(200);
      expect(asset.headers['content-type']).toMatch(source.endsWith('.css') ? /text\/css/ : /javascript/);
    }
    expect((await admin.get('/api/docs/init.js')).text).toContain("url: '/api/docs/openapi.json'");
  });
});
