import { isSecretFieldName, operationSecretFields, routeRisk } from './route-risk';

const sensitive = (path: string, method = 'get', type = 'sonarr', version?: string) =>
  routeRisk(type, version, method, path).sensitive;

describe('routeRisk', () => {
  it('keeps every v3 name sensitive, and plain library reads not', () => {
    for (const path of [
      '/api/v3/config/host',
      '/api/v3/config/host/1',
      '/api/v1/system/backup/restore',
      '/api/v3/system/restart',
      '/api/v3/downloadclient/{id}',
      '/api/v1/indexer',
      '/api/v1/indexerproxy/2',
      '/api/v3/notification/test',
      '/api/v1/applications',
      '/api/v3/importlist',
      '/api/v3/metadata',
      '/api/v3/update',
      '/api/v3/filesystem',
      '/api/v3/command/5',
      '/api/v3/log/file/sonarr.txt',
      '/initialize.json',
      '/signalr/messages',
    ])
      expect([path, sensitive(path)]).toEqual([path, true]);
    // The web UI's form login (Notifiarr posts the UI's username and password to it for a backup).
    expect(sensitive('/login', 'post')).toBe(true);
    expect(routeRisk('radarr', undefined, 'post', '/login').reason).toMatch(/password/);
    for (const path of [
      '/api/v3/movie',
      '/api/v3/series/{id}',
      '/api/v3/config/ui',
      '/api/v3/system/status',
      '/api/v3/calendar',
      '/feed/v3/calendar/radarr.ics',
      '/api/v3/log',
    ])
      expect([path, sensitive(path)]).toEqual([path, false]);
  });

  it('knows the v5 names: settings/general|host|update and connection', () => {
    for (const path of [
      '/api/v5/settings/general',
      '/api/v5/settings/general/{id}',
      '/API/V5/Settings/Host',
      '/api/v5/settings/update/1',
      '/api/v5/connection',
      '/api/v5/connection/{id}',
      '/api/v5/connection/schema',
    ])
      expect([path, sensitive(path, 'get', 'sonarr', 'v5')]).toEqual([path, true]);
    for (const path of ['/api/v5/settings/ui', '/api/v5/settings/naming', '/api/v5/series', '/api/v5/connectionless'])
      expect([path, sensitive(path, 'get', 'sonarr', 'v5')]).toEqual([path, false]);
  });

  it('fails closed: any update or script segment, in any version, known or not', () => {
    for (const path of ['/api/v9/whatever/update', '/api/v6/settings/script/1', '/api/v5/log/file/update', '/update'])
      expect([path, sensitive(path, 'post', 'sonarr', 'v9')]).toEqual([path, true]);
    expect(sensitive('/api/v9/updates')).toBe(false);
  });

  it('applies the schema rule to the method described, and to undescribed methods of the route', () => {
    const route = {
      path: '/api/v9/preferences/{id}',
      operations: { get: { secretFields: ['apiKey'] }, delete: { secretFields: [] } },
    };
    expect(routeRisk('sonarr', 'v9', 'get', route)).toEqual({
      sensitive: true,
      destructive: false,
      purpose: 'read library',
      reason: 'Its sonarr v9 OpenAPI schema carries secret fields (apiKey).',
    });
    expect(routeRisk('sonarr', 'v9', 'delete', route).sensitive).toBe(false);
    expect(routeRisk('sonarr', 'v9', 'put', route).sensitive).toBe(true);
  });

  it('marks every DELETE and any call to an editor or bulk route destructive', () => {
    expect(routeRisk('radarr', 'v3', 'delete', '/api/v3/movie/{id}')).toMatchObject({
      sensitive: false,
      destructive: true,
      purpose: 'delete',
    });
    expect(routeRisk('radarr', 'v3', 'put', '/api/v3/movie/editor')).toMatchObject({
      destructive: true,
      purpose: 'edit library',
    });
    expect(routeRisk('sonarr', 'v5', 'post', '/api/v5/queue/grab/bulk').destructive).toBe(true);
    expect(routeRisk('radarr', 'v3', 'get', '/api/v3/movie').destructive).toBe(false);
    expect(routeRisk('radarr', 'v3', 'delete', '/api/v3/indexer/1')).toMatchObject({
      sensitive: true,
      destructive: true,
      purpose: 'delete',
    });
  });

  it('groups calls by purpose and says why', () => {
    expect(routeRisk('radarr', 'v3', 'get', '/api/v3/movie')).toMatchObject({ purpose: 'read library' });
    expect(routeRisk('radarr', 'v3', 'get', '/api/v3/movie/lookup')).toMatchObject({ purpose: 'add/search' });
    expect(routeRisk('radarr', 'v3', 'post', '/api/v3/movie')).toMatchObject({ purpose: 'add/search' });
    expect(routeRisk('radarr', 'v3', 'put', '/api/v3/movie/{id}')).toMatchObject({ purpose: 'edit library' });
    expect(routeRisk('radarr', 'v3', 'get', '/api/v3/qualityprofile')).toMatchObject({ purpose: 'settings' });
    expect(routeRisk('radarr', 'v3', 'get', '/api/v3/system/status')).toMatchObject({ purpose: 'system' });
    const host = routeRisk('sonarr', 'v5', 'get', '/api/v5/settings/general');
    expect(host).toMatchObject({ sensitive: true, purpose: 'settings' });
    expect(host.reason).toMatch(/API key/);
    expect(routeRisk('sonarr', 'v5', 'put', '/api/v5/settings/update/1').reason).toMatch(/code execution/);
  });
});

describe('the schema rule', () => {
  it('names apiKey, password, *Password, passphrase, token and secret, in any case', () => {
    for (const name of [
      'apiKey',
      'APIKEY',
      'password',
      'proxyPassword',
      'sslCertPassword',
      'PassPhrase',
      'token',
      'Secret',
    ])
      expect([name, isSecretFieldName(name)]).toEqual([name, true]);
    for (const name of ['passwordConfirmation', 'releaseTokens', 'minimumApiKeyLength', 'username', 'apiKeyHeader'])
      expect([name, isSecretFieldName(name)]).toEqual([name, false]);
  });

  const doc = {
    openapi: '3.0.1',
    paths: {},
    components: {
      schemas: {
        Plain: { type: 'object', properties: { title: { type: 'string' } } },
        Host: { type: 'object', properties: { port: { type: 'integer' }, apiKey: { type: 'string' } } },
        Nested: { type: 'object', properties: { outer: { type: 'object', properties: { sslCertPassword: {} } } } },
        Combined: {
          allOf: [{ $ref: '#/components/schemas/Plain' }, { oneOf: [{ $ref: '#/components/schemas/Deep' }] }],
        },
        Deep: { anyOf: [{ type: 'array', items: { properties: { token: { type: 'string' } } } }] },
        Cycle: { type: 'object', properties: { self: { $ref: '#/components/schemas/Cycle' }, name: {} } },
        Field: { type: 'object', properties: { name: { type: 'string', enum: ['host', 'passphrase'] }, value: {} } },
        Provider: {
          type: 'object',
          properties: { fields: { type: 'array', items: { $ref: '#/components/schemas/Field' } } },
        },
        UnnamedField: { type: 'object', properties: { name: { type: 'string' }, value: {} } },
      },
      requestBodies: {
        HostBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Host' } } } },
      },
    },
  };
  const returns = (ref: string) => ({
    responses: { '200': { content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } } } },
  });

  it('follows $ref, allOf/oneOf/anyOf, arrays and nested objects in requests and responses', () => {
    expect(operationSecretFields(doc, returns('Plain'))).toEqual([]);
    expect(operationSecretFields(doc, returns('Host'))).toEqual(['apiKey']);
    expect(operationSecretFields(doc, returns('Nested'))).toEqual(['sslCertPassword']);
    expect(operationSecretFields(doc, returns('Combined'))).toEqual(['token']);
    expect(operationSecretFields(doc, returns('Cycle'))).toEqual([]);
    expect(operationSecretFields(doc, { requestBody: { $ref: '#/components/requestBodies/HostBody' } })).toEqual([
      'apiKey',
    ]);
    // Swagger 2: a body parameter and a response schema.
    expect(
      operationSecretFields(doc, {
        parameters: [{ in: 'body', name: 'body', schema: { properties: { password: {} } } }],
        responses: { '200': { schema: { type: 'array', items: { properties: { secret: {} } } } } },
      }),
    ).toEqual(['password', 'secret']);
  });

  it('reads the names stated for dynamic `fields` lists, and nothing when none is stated', () => {
    expect(operationSecretFields(doc, returns('Provider'))).toEqual(['passphrase']);
    expect(
      operationSecretFields(doc, {
        responses: {
          '200': { content: { 'application/json': { schema: { $ref: '#/components/schemas/UnnamedField' } } } },
        },
      }),
    ).toEqual([]);
  });
});
