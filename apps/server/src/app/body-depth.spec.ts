import type { ApiError } from '@arrbiter/contracts';
import { AdminClient, startTestApp, TEST_ADMIN, TestApp } from '../testing/test-app';

/** `[[[…1…]]]`, `depth` arrays deep. */
const nested = (depth: number): string => `${'['.repeat(depth)}1${']'.repeat(depth)}`;

/**
 * Hostile bodies answered 500 before (security round 3, item 11): JSON nested deep enough to overflow
 * validation's stack, and map keys that name `Object.prototype`'s members. Both are the client's fault: 400.
 */
describe('request bodies that used to answer 500', () => {
  let t: TestApp;
  let admin: AdminClient;

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none' });
    admin = await t.admin();
  });
  afterAll(() => t.close());

  const signIn = (body: string) =>
    t.http
      .post('/api/auth/sign-in')
      .set('Origin', t.config.publicOrigin)
      .set('Content-Type', 'application/json')
      .send(body);

  describe('JSON nested deeper than 64 levels is refused with 400 before validation', () => {
    it.each([
      ['arrays', 1800],
      ['arrays', 65],
    ])('an anonymous sign-in whose password is %s nested %i deep', async (_kind, depth) => {
      const response = await signIn(`{"username":"admin","password":${nested(depth)}}`);
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toMatch(/json/);
      expect(JSON.stringify(response.body as ApiError)).toMatch(/nested deeper than 64/);
    });

    it('objects nested 1,800 deep in an admin body', async () => {
      const body = `{"name":"x","slug":"deep","templateId":null,"active":true,"extra":${'{"a":'.repeat(1800)}1${'}'.repeat(1800)}}`;
      const response = await t.http
        .post('/api/admin/v1/apps')
        .set('Cookie', await t.signIn())
        .set('Origin', t.config.publicOrigin)
        .set('Content-Type', 'application/json')
        .send(body);
      expect(response.status).toBe(400);
      expect(JSON.stringify(response.body as ApiError)).toMatch(/nested deeper than 64/);
    });

    it('brackets inside strings do not count', async () => {
      const response = await signIn(JSON.stringify({ username: 'admin', password: nested(100) }));
      expect(response.status).toBe(401);
    });

    it('a body at the limit is read as before', async () => {
      // 64 levels: the outer object and 63 arrays; validation refuses the array as a password.
      const response = await signIn(`{"username":"admin","password":${nested(63)}}`);
      expect(response.status).toBe(400);
      expect(JSON.stringify(response.body)).not.toMatch(/nested deeper/);
      await signIn(JSON.stringify(TEST_ADMIN)).expect(200);
    });

    it.each([1400, 1800, 100_000])('a YAML configuration document nested %i deep', async (depth) => {
      const response = await t.http
        .post('/api/admin/v1/config/import?dryRun=true')
        .set('Cookie', await t.signIn())
        .set('Origin', t.config.publicOrigin)
        .set('Content-Type', 'application/yaml')
        .send(`version: 1\napps: ${nested(depth)}\n`);
      expect(response.status).toBe(400);
      expect(JSON.stringify(response.body)).toMatch(/the document is nested deeper than 64 levels/);
    });

    it('a YAML document nested in block style, 200 deep', async () => {
      const lines = Array.from({ length: 200 }, (_, i) => `${' '.repeat(2 * i + 2)}-`).join('\n');
      const response = await t.http
        .post('/api/admin/v1/config/import?dryRun=true')
        .set('Cookie', await t.signIn())
        .set('Origin', t.config.publicOrigin)
        .set('Content-Type', 'application/yaml')
        .send(`version: 1\napps:\n${lines} 1\n`);
      expect(response.status).toBe(400);
      expect(JSON.stringify(response.body)).toMatch(/the document is nested deeper than 64 levels/);
    });
  });

  describe('reserved keys (constructor, __proto__, prototype) anywhere in a body', () => {
    it.each(['constructor', '__proto__', 'prototype'])(
      'an anonymous sign-in whose username is an object keyed "%s" is a 400 naming it',
      async (key) => {
        const response = await signIn(`{"username":{"${key}":1},"password":"x"}`);
        expect(response.status).toBe(400);
        expect(JSON.stringify(response.body)).toContain(`reserved key \\"${key}\\" in username`);
      },
    );

    it('a YAML document with a constructor key in a template block', async () => {
      const response = await t.http
        .post('/api/admin/v1/config/import?dryRun=true')
        .set('Cookie', await t.signIn())
        .set('Origin', t.config.publicOrigin)
        .set('Content-Type', 'application/yaml')
        .send(
          'version: 1\ntemplates:\n  - name: Odd\n    source: local\n    blocks:\n      radarr:\n        constructor: [get]\n',
        );
      expect(response.status).toBe(400);
      expect(JSON.stringify(response.body)).toContain('reserved key \\"constructor\\" in templates[0].blocks.radarr');
    });
  });

  describe('map keys that name Object.prototype members in an imported document', () => {
    const importing = (document: object) => admin.post('/api/admin/v1/config/import?dryRun=true', document);

    it.each(['constructor', '__proto__', 'prototype', 'toString', 'hasOwnProperty'])(
      'a template block keyed "%s" is a 400 naming it',
      async (key) => {
        const response = await importing({
          version: 1,
          templates: [{ name: 'Odd', source: 'local', blocks: JSON.parse(`{"${key}": {"/api/v3/movie": ["get"]}}`) }],
        });
        expect(response.status).toBe(400);
        expect(JSON.stringify(response.body)).toContain(key);
      },
    );

    it.each(['constructor', '__proto__', 'prototype', 'toString'])(
      'an override path keyed "%s" is a 400 naming it',
      async (key) => {
        const response = await importing({
          version: 1,
          apps: [
            {
              slug: 'odd',
              name: 'Odd',
              proxies: [{ service: 'http://127.0.0.1:1', overrides: JSON.parse(`{"${key}": ["get"]}`) }],
            },
          ],
        });
        expect(response.status).toBe(400);
        expect(JSON.stringify(response.body)).toContain(key);
      },
    );
  });
});
