import type { AdminRole, CreatedTokenResponse } from '@arrbiter/contracts';
import request from 'supertest';
import { registeredRoutes, Route } from '../testing/registered-routes';
import { startTestApp, TestApp } from '../testing/test-app';
import { hasRole } from '@arrbiter/server/access';

/**
 * Routes that are public on purpose; everything else must need a signed-in administrator. The proxy
 * route is not a Nest route: it is served in front of Express with proxy keys as its credential.
 */
const PUBLIC_ROUTES = new Set([
  'POST /api/auth/sign-in',
  'POST /api/auth/sign-out',
  'GET /api/auth/methods',
  // Says whether the caller is signed in (200 either way); reads a session only when there is one.
  'GET /api/auth/state',
  'GET /api/auth/oidc/login',
  'GET /api/auth/oidc/callback',
  'GET /health',
  'GET /health/ready',
]);

/** Writes a viewer may make: to their own account (password, sessions, their own viewer tokens). */
const OWN_ACCOUNT_WRITES = new Set([
  'PUT /api/auth/password',
  'POST /api/auth/oidc/link',
  'DELETE /api/auth/sessions/:id',
  'POST /api/admin/v1/tokens',
  'DELETE /api/admin/v1/tokens/:id',
]);

const ROLES: readonly AdminRole[] = ['viewer', 'editor', 'owner'];

const key = (r: Route) => `${r.method} ${r.path}`;

/** Fills route parameters with plausible values (UUIDs for ids). */
function concrete(path: string): string {
  return path.replace(/:([A-Za-z]+)\??/g, (_m, name: string) =>
    /id$/i.test(name) ? '3f2b1c9e-8d7a-4b6c-9e5f-1a2b3c4d5e6f' : 'sonarr',
  );
}

describe('default-deny on admin routes, and which roles reach each', () => {
  let t: TestApp;
  let routes: Route[];
  let guarded: Route[];

  /** Sends the route with a body-less `{}` as someone (a cookie or a bearer token), with a good Origin. */
  const send = (route: Route, credential: { cookie?: string; bearer?: string }) => {
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
    const call = request(t.app.getHttpServer())[method](concrete(route.path)).set('Origin', t.config.publicOrigin);
    if (credential.cookie) call.set('Cookie', credential.cookie);
    if (credential.bearer) call.set('Authorization', `Bearer ${credential.bearer}`);
    return call.send({});
  };

  beforeAll(async () => {
    t = await startTestApp();
    routes = registeredRoutes(t.app);
    guarded = routes.filter((r) => !r.isPublic);
  });
  afterAll(() => t.close());

  it('finds the routes it must check', () => {
    expect(routes.map(key)).toEqual(
      expect.arrayContaining([
        'GET /api/auth/session',
        'GET /api/admin/v1/services',
        'POST /api/admin/v1/apps/:appId/proxies',
        'PUT /api/admin/v1/proxies/:id/config',
        'GET /api/admin/v1/proxies/:id/key',
        'GET /api/admin/v1/warnings',
        'PUT /api/admin/v1/openapi/:serviceType/:apiVersion',
        'POST /api/admin/v1/admins',
        'DELETE /api/admin/v1/admins/:id/sso',
        'POST /api/auth/oidc/link',
        'POST /api/admin/v1/tokens',
        'PUT /api/auth/password',
        'GET /api/docs/openapi.json',
        'POST /api/admin/v1/apps/:id/clone',
        'GET /api/admin/v1/templates/pending',
        'POST /api/admin/v1/templates/:id/pending/apply',
        'POST /api/admin/v1/templates/:id/pending/dismiss',
        ...PUBLIC_ROUTES,
      ]),
    );
    expect(
      routes
        .filter((r) => r.isPublic)
        .map(key)
        .sort(),
    ).toEqual([...PUBLIC_ROUTES].sort());
  });

  it('keeps every admin route under /api/admin/v1 or /api/auth (and its description under /api/docs)', () => {
    const stray = routes
      .map((r) => r.path)
      .filter((path) => !/^\/(api\/admin\/v1|api\/auth|api\/docs|health|proxy)(\/|$)/.test(path));
    expect(stray).toEqual([]);
  });

  it('has every non-public route name its least role', () => {
    expect(guarded.filter((r) => r.minRole === undefined).map(key)).toEqual([]);
  });

  it('opens no write to viewers but their own account, accounts and settings to owners only', () => {
    const viewerWrites = guarded.filter((r) => r.method !== 'GET' && r.minRole === 'viewer').map(key);
    expect(viewerWrites.sort()).toEqual([...OWN_ACCOUNT_WRITES].sort());
    const ownerOnly = guarded.filter(
      (r) =>
        r.path.startsWith('/api/admin/v1/admins') ||
        (r.method !== 'GET' && r.path.startsWith('/api/admin/v1/settings/')),
    );
    expect(ownerOnly.length).toBeGreaterThan(0);
    expect(ownerOnly.filter((r) => r.minRole !== 'owner').map(key)).toEqual([]);
    // Secrets: the proxy key's reveal is not a viewer's read.
    expect(guarded.find((r) => key(r) === 'GET /api/admin/v1/proxies/:id/key')?.minRole).toBe('editor');
    // A template widening a sync held is applied or dismissed by an editor; anyone signed in reads it.
    expect(
      guarded
        .filter((r) => r.path.includes('/templates/') && r.path.includes('pending'))
        .map((r) => `${key(r)} ${r.minRole}`),
    ).toEqual(
      expect.arrayContaining([
        'GET /api/admin/v1/templates/pending viewer',
        'POST /api/admin/v1/templates/:id/pending/apply editor',
        'POST /api/admin/v1/templates/:id/pending/dismiss editor',
      ]),
    );
    // Accounts and tokens are a person's business, never a token's.
    const managing = guarded.filter((r) => /^\/api\/admin\/v1\/(admins|tokens)(\/|$)/.test(r.path));
    expect(managing.filter((r) => !r.sessionOnly).map(key)).toEqual([]);
  });

  it('refuses every non-public route without a credential (401), even with a valid Origin', async () => {
    expect(guarded.length).toBeGreaterThan(0);
    const refusals: string[] = [];
    for (const route of guarded) refusals.push(`${key(route)} -> ${(await send(route, {})).status}`);
    expect(refusals).toEqual(guarded.map((r) => `${key(r)} -> 401`));
  });

  it('lets each role reach exactly the routes at or below it: 403 above it, never 401 or 403 below', async () => {
    const admin = await t.admin();
    const cookies: Partial<Record<AdminRole, string>> = { owner: await t.signIn() };
    for (const role of ['viewer', 'editor'] as const) {
      const username = `matrix-${role}`;
      const password = `${role} passphrase for the matrix`;
      await admin.post('/api/admin/v1/admins', { username, password, role }).expect(201);
      cookies[role] = await t.signIn({ username, password });
    }
    const got: string[] = [];
    const expected: string[] = [];
    for (const route of guarded) {
      for (const role of ROLES) {
        const status = (await send(route, { cookie: cookies[role] })).status;
        const minRole = route.minRole ?? 'owner';
        got.push(`${role} ${key(route)} -> ${status === 403 ? 'refused' : status === 401 ? 'signed out' : 'reached'}`);
        expected.push(`${role} ${key(route)} -> ${hasRole(role, minRole) ? 'reached' : 'refused'}`);
      }
    }
    expect(got).toEqual(expected);
  });

  it('lets an API token reach the admin API within its role, never session-only routes nor /api/auth', async () => {
    const admin = await t.admin();
    const tokens: Partial<Record<AdminRole, string>> = {};
    for (const role of ROLES) {
      const created = await admin.post('/api/admin/v1/tokens', { name: `matrix ${role}`, role }).expect(201);
      tokens[role] = (created.body as CreatedTokenResponse).token;
    }
    const got: string[] = [];
    const expected: string[] = [];
    for (const route of guarded) {
      for (const role of ROLES) {
        const status = (await send(route, { bearer: tokens[role] })).status;
        got.push(
          `${role} token ${key(route)} -> ${status === 403 ? 'refused' : status === 401 ? 'no credential' : 'reached'}`,
        );
        const outcome = !route.path.startsWith('/api/admin/v1/')
          ? 'no credential'
          : route.sessionOnly || !hasRole(role, route.minRole ?? 'owner')
            ? 'refused'
            : 'reached';
        expected.push(`${role} token ${key(route)} -> ${outcome}`);
      }
    }
    expect(got).toEqual(expected);
  });

  it('does not take a proxy-style key as an admin credential', async () => {
    await t.http.get('/api/auth/session').set('X-Api-Key', '0123456789abcdef0123456789abcdef').expect(401);
    await t.http.get('/api/auth/session?apikey=0123456789abcdef0123456789abcdef').expect(401);
  });
});
