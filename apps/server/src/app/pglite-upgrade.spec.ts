import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { startTestApp, TestApp } from '../testing/test-app';

const FIXTURES = join(__dirname, '../../../../libs/server/database/src/testing/fixtures');
const fixture = JSON.parse(readFileSync(join(FIXTURES, 'pglite-data-dir.json'), 'utf8')) as {
  service: { id: string; baseUrl: string };
  app: { id: string; slug: string };
  proxy: { id: string; key: string };
  revisions: string[];
  admin: { username: string; password: string };
};

/** The service the fixture's proxy forwards to: answers every call with 200 and the key it received. */
function upstream(): Promise<Server> {
  const server = createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ version: '5.0.0', path: req.url }));
  });
  const { port, hostname } = new URL(fixture.service.baseUrl);
  return new Promise((resolve) => server.listen(Number(port), hostname, () => resolve(server)));
}

/** The whole server on the fixture's DATA_DIR, on the embedded database whatever the run uses. */
function startOn(dataDir: string): Promise<TestApp> {
  return startTestApp({ DATA_DIR: dataDir, DATABASE_URL: undefined, SECRET_KEY: undefined });
}

async function adminSession(app: TestApp): Promise<string> {
  const response = await app.http
    .post('/api/auth/sign-in')
    .set('Origin', app.config.publicOrigin)
    .send(fixture.admin)
    .expect(200);
  return ([] as string[]).concat(response.headers['set-cookie'] ?? [])[0].split(';')[0];
}

/** Every service, app, proxy, key and revision of the fixture is there, and the key opens the proxy. */
async function expectEverything(app: TestApp): Promise<void> {
  const cookie = await adminSession(app);
  const get = (path: string) => app.http.get(path).set('Cookie', cookie).expect(200);
  expect((await get(`/api/admin/v1/services/${fixture.service.id}`)).body).toMatchObject({ id: fixture.service.id });
  expect((await get(`/api/admin/v1/apps/${fixture.app.id}`)).body).toMatchObject({
    id: fixture.app.id,
    slug: fixture.app.slug,
  });
  const proxy = (await get(`/api/admin/v1/proxies/${fixture.proxy.id}`)).body as { key: string };
  expect(proxy.key).toBe(fixture.proxy.key);
  const revisions = (await get(`/api/admin/v1/proxies/${fixture.proxy.id}/revisions`)).body as {
    items: { id: string }[];
  };
  expect(revisions.items.map((revision) => revision.id).sort()).toEqual([...fixture.revisions].sort());

  const server = app.app.getHttpServer();
  const proxied = await request(server)
    .get(`/proxy/${fixture.app.slug}/api/v3/system/status`)
    .set('x-api-key', fixture.proxy.key);
  expect(proxied.status).toBe(200);
  expect(proxied.body).toMatchObject({ version: '5.0.0' });
  await request(server)
    .get(`/proxy/${fixture.app.slug}/api/v3/system/status`)
    .set('x-api-key', 'f'.repeat(32))
    .expect(401);
}

describe('upgrading a DATA_DIR written by PGlite', () => {
  let dataDir: string;
  let app: TestApp | undefined;
  let service: Server;

  beforeAll(async () => {
    service = await upstream();
  });

  afterAll(async () => {
    await new Promise((resolve) => service.close(resolve));
  });

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'arrbiter-pglite-'));
    execFileSync('tar', ['xzf', join(FIXTURES, 'pglite-data-dir.tgz'), '-C', dataDir]);
  });

  afterEach(async () => {
    await app?.close();
    app = undefined;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('moves every service, app, proxy, key and revision into the embedded PostgreSQL and keeps the old directory as a backup', async () => {
    const pgliteFiles = readdirSync(join(dataDir, 'pg')).sort();
    app = await startOn(dataDir);
    await expectEverything(app);

    const backups = readdirSync(dataDir).filter((name) => name.startsWith('pg.pglite-backup-'));
    expect(backups).toHaveLength(1);
    expect(readdirSync(join(dataDir, backups[0])).sort()).toEqual(pgliteFiles);
    expect(existsSync(join(dataDir, 'pg', 'arrbiter-embedded.json'))).toBe(true);

    // A restart finds the moved data as it is, with no second upgrade.
    await app.close();
    app = await startOn(dataDir);
    await expectEverything(app);
    expect(readdirSync(dataDir).filter((name) => name.startsWith('pg.pglite-backup-'))).toEqual(backups);
  });

  it('does it again after an upgrade that was interrupted half-way, from the untouched PGlite files', async () => {
    // What an interrupted upgrade leaves: the working copy and an incomplete new directory.
    mkdirSync(join(dataDir, 'pg.pglite-work'));
    mkdirSync(join(dataDir, 'pg.upgrade'));
    writeFileSync(join(dataDir, 'pg.upgrade', 'PG_VERSION'), '18\n');
    app = await startOn(dataDir);
    await expectEverything(app);
    expect(existsSync(join(dataDir, 'pg.pglite-work'))).toBe(false);
    expect(existsSync(join(dataDir, 'pg.upgrade'))).toBe(false);
  });
});
