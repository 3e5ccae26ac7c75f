import request from 'supertest';
import { registeredRoutes } from '../testing/registered-routes';
import { startTestApp, TestApp } from '../testing/test-app';

/**
 * Routes that are public on purpose; everything else must need an admin session. The proxy route is
 * not a Nest route: it is served in front of Express with proxy keys as its credential (proxy.spec.ts).
 */
const PUBLIC_ROUTES = new Set([
  'POST /api/auth/sign-in',
  'POST /api/auth/sign-out',
  'GET /health',
  'GET /health/ready',
]);

/** Fills route parameters with plausible values (UUIDs for ids). */
function concrete(path: string): string {
  return path.replace(/:([A-Za-z]+)\??/g, (_m, name: string) =>
    /id$/i.test(name) ? '3f2b1c9e-8d7a-4b6c-9e5f-1a2b3c4d5e6f' : 'sonarr',
  );
}

describe('default-deny on admin routes', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('finds the routes it must check', () => {
    const routes = registeredRoutes(t.app).map((r) => `${r.method} ${r.path}`);
    expect(routes).toEqual(
      expect.arrayContaining([
        'GET /api/auth/session',
        'GET /api/admin/v1/services',
        'POST /api/admin/v1/apps/:appId/proxies',
        'PUT /api/admin/v1/proxies/:id/config',
        'GET /api/admin/v1/warnings',
        'PUT /api/admin/v1/openapi/:serviceType/:apiVersion',
        ...PUBLIC_ROUTES,
      ]),
    );
  });

  it('keeps every admin route under /api/admin/v1 or /api/auth (and its description under /api/docs)', () => {
    const stray = registeredRoutes(t.app)
      .map((r) => r.path)
      .filter((path) => !/^\/(api\/admin\/v1|api\/auth|api\/docs|health|proxy)(\/|$)/.test(path));
    expect(stray).toEqual([]);
  });

  it('refuses every non-public route without a session (401), even with a valid Origin', async () => {
    const guarded = registeredRoutes(t.app).filter((r) => !PUBLIC_ROUTES.has(`${r.method} ${r.path}`));
    expect(guarded.length).toBeGreaterThan(0);
    const refusals: string[] = [];
    for (const route of guarded) {
      const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
      const response = await request(t.app.getHttpServer())
        [method](concrete(route.path))
        .set('Origin', t.config.publicOrigin)
        .send({});
      refusals.push(`${route.method} ${route.path} -> ${response.status}`);
    }
    expect(refusals).toEqual(guarded.map((r) => `${r.method} ${r.path} -> 401`));
  });

  it('does not take a proxy-style key as an admin credential', async () => {
    await t.http.get('/api/auth/session').set('X-Api-Key', '0123456789abcdef0123456789abcdef').expect(401);
    await t.http.get('/api/auth/session?apikey=0123456789abcdef0123456789abcdef').expect(401);
  });
});
