import type {
  AllowlistResponse,
  BulkWarningsResponse,
  Page,
  ProxyConfigSaveResponse,
  RevisionDto,
  UndoRevisionResponse,
  WarningDto,
} from '@arrbiter/contracts';
import { WarningRecorder } from '@arrbiter/server/warnings';
import { ProxiedUpstream, ungrantedProxy } from '../testing/proxied-upstream';
import { rawRequest } from '../testing/raw-http';
import { AdminClient, startTestApp, TestApp } from '../testing/test-app';

/** Undo (#38): a new revision that takes back exactly the grants one revision added. */
describe('undoing a revision', () => {
  let t: TestApp;
  let admin: AdminClient;
  let base: string;
  let setup: ProxiedUpstream;

  const get = (path: string) =>
    rawRequest(base, 'GET', `/proxy/${setup.app.slug}${path}`, { 'x-api-key': setup.proxy.key });
  const revisions = async () =>
    (
      (await admin.get(`/api/admin/v1/proxies/${setup.proxy.id}/revisions?limit=200`).expect(200))
        .body as Page<RevisionDto>
    ).items;
  const allowlist = async () =>
    (await admin.get(`/api/admin/v1/proxies/${setup.proxy.id}/allowlist`).expect(200)).body as AllowlistResponse;
  const undo = (revisionId: string) =>
    admin.post(`/api/admin/v1/proxies/${setup.proxy.id}/revisions/${revisionId}/undo`);
  /** Refuses the paths, then grants their warnings in bulk: the `warning-grant` revision. */
  const grantFromWarnings = async (...paths: string[]) => {
    for (const path of paths) expect((await get(path)).status).toBe(403);
    await t.app.get(WarningRecorder).flush();
    const rows = (
      (await admin.get(`/api/admin/v1/warnings?proxyId=${setup.proxy.id}&status=open&limit=200`).expect(200))
        .body as Page<WarningDto>
    ).items;
    const ids = paths.map((path) => rows.find((w) => w.path === path)?.id ?? '');
    const response = (await admin.post('/api/admin/v1/warnings/grant', { ids }).expect(200))
      .body as BulkWarningsResponse;
    expect(response.revisions).toHaveLength(1);
    return response.revisions[0];
  };

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none' });
    admin = await t.admin();
    base = await t.listen();
    setup = await ungrantedProxy(admin, 'undo', 'Undo');
  });
  afterAll(async () => {
    await setup?.upstream.stop();
    await t?.close();
  });

  it('records a proxy made by hand as a `created` revision, which added nothing to undo', async () => {
    const [first] = await revisions();
    expect(first).toMatchObject({ kind: 'created', summary: { added: [], removed: [] } });
    expect(first.summary.text).toMatch(/^Proxy created/);
    const refusal = await undo(first.id).expect(400);
    expect((refusal.body as { message: string }).message).toMatch(/added no grant and revoked none/);
  });

  it('takes back exactly the grants a warning grant added, leaving a later grant alone, at once on the proxy route', async () => {
    const first = await grantFromWarnings('/api/v3/movie', '/api/v3/calendar');
    const later = await grantFromWarnings('/api/v3/tag');
    expect((await get('/api/v3/movie')).status).not.toBe(403);

    const { revision } = (await undo(first.id).expect(201)).body as UndoRevisionResponse;
    expect(revision).toMatchObject({ kind: 'undo', proxyId: setup.proxy.id, summary: { added: [] } });
    expect(revision.summary.removed).toEqual(expect.arrayContaining(first.summary.added));
    expect(revision.summary.removed).toHaveLength(2);
    expect((await get('/api/v3/movie')).status).toBe(403);
    expect((await get('/api/v3/calendar')).status).toBe(403);
    expect((await get('/api/v3/tag')).status).not.toBe(403);
    expect((await allowlist()).effective).toEqual({ '/api/v3/tag': ['get'] });
    expect((await revisions())[0].id).toBe(revision.id);

    // Undone once: its grants are gone, so a second undo names one and writes nothing.
    const count = (await revisions()).length;
    const again = await undo(first.id).expect(409);
    expect((again.body as { message: string }).message).toMatch(/GET \/api\/v3\/(movie|calendar) is no longer granted/);
    expect(await revisions()).toHaveLength(count);
    expect(later.kind).toBe('warning-grant');
  });

  it('refuses (409, nothing written) when a later revision rewrote the path of a grant, and undoes a manual edit', async () => {
    const grant = await grantFromWarnings('/api/v3/queue');
    // A later manual edit adds POST on the same path: the GET is still granted, but its override changed.
    const { overrides } = await allowlist();
    const saved = (
      await admin
        .put(`/api/admin/v1/proxies/${setup.proxy.id}/config`, {
          overrides: { ...overrides, '/api/v3/queue': ['get', 'post'], '/api/v3/system/status': ['get'] },
          active: true,
        })
        .expect(200)
    ).body as ProxyConfigSaveResponse;
    const [manual] = await revisions();
    expect(manual.kind).toBe('manual');
    // The save names the revision it wrote (the dashboard's Undo takes it back), with the allowlist.
    expect(saved.revisionId).toBe(manual.id);
    expect(saved.effective['/api/v3/queue']).toEqual(['get', 'post']);
    const count = (await revisions()).length;
    const refusal = await undo(grant.id).expect(409);
    expect((refusal.body as { message: string }).message).toMatch(/GET \/api\/v3\/queue: a later revision changed/);
    expect(await revisions()).toHaveLength(count);
    expect((await get('/api/v3/queue')).status).not.toBe(403);

    // The manual edit itself can be undone: POST on the queue and the status read go, the rest stays.
    expect(manual.summary.added).toEqual(
      expect.arrayContaining([
        { path: '/api/v3/queue', method: 'post' },
        { path: '/api/v3/system/status', method: 'get' },
      ]),
    );
    await undo(manual.id).expect(201);
    expect((await allowlist()).effective).toEqual({ '/api/v3/queue': ['get'], '/api/v3/tag': ['get'] });
    expect((await get('/api/v3/system/status')).status).toBe(403);
    expect((await get('/api/v3/queue')).status).not.toBe(403);
  });

  it('answers 404 for a revision of another proxy, and refuses to undo an undo', async () => {
    const other = await ungrantedProxy(admin, 'undo-other', 'Undo other');
    try {
      const [created] = (
        (await admin.get(`/api/admin/v1/proxies/${other.proxy.id}/revisions`).expect(200)).body as Page<RevisionDto>
      ).items;
      await undo(created.id).expect(404);
    } finally {
      await other.upstream.stop();
    }
    const [latestUndo] = (await revisions()).filter((r) => r.kind === 'undo');
    await undo(latestUndo.id).expect(400);
  });

  it('gives back the grants a revision revoked (Fit’s "Revoke unused"), and refuses once one is granted again', async () => {
    const save = async (overrides: Record<string, string[]>) =>
      (
        (await admin.put(`/api/admin/v1/proxies/${setup.proxy.id}/config`, { overrides, active: true }).expect(200))
          .body as ProxyConfigSaveResponse
      ).revisionId ?? '';
    const before = await allowlist();
    expect(before.effective['/api/v3/tag']).toEqual(['get']);
    const revoked = await save({ ...before.overrides, '/api/v3/tag': [] });
    expect((await get('/api/v3/tag')).status).toBe(403);
    const undone = (await undo(revoked).expect(201)).body as UndoRevisionResponse;
    expect(undone.revision.summary.added).toEqual([{ path: '/api/v3/tag', method: 'get' }]);
    expect((await allowlist()).effective).toEqual(before.effective);
    expect((await get('/api/v3/tag')).status).not.toBe(403);

    // Revoked, then granted again by hand: the revocation can no longer be undone, and nothing is written.
    const again = await save({ ...(await allowlist()).overrides, '/api/v3/tag': [] });
    await save({ ...(await allowlist()).overrides, '/api/v3/tag': ['get'] });
    const count = (await revisions()).length;
    const refusal = await undo(again).expect(409);
    expect((refusal.body as { message: string }).message).toMatch(/GET \/api\/v3\/tag is granted again/);
    expect(await revisions()).toHaveLength(count);
  });
});
