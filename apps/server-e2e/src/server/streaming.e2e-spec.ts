import { request } from 'node:http';
import type { ProxyConnectionDto } from '@arrbiter/contracts';
import { createTestDatabase, eventually, TestDatabase, seedProxy } from '@arrbiter/server/testing';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { AdminHttpClient } from '../support/admin-client';
import { ServerProcess, startServer } from '../support/server-process';

const ADMIN = { ADMIN_USERNAME: 'admin', ADMIN_PASSWORD: 'streaming test passphrase' };

describe('streaming and shutdown of the production server', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let upstream: FakeServarr;
  let proxy: ProxyConnectionDto;

  beforeAll(async () => {
    database = await createTestDatabase();
    upstream = await FakeServarr.start({ type: 'radarr' });
    server = await startServer({ ...database.env, ...ADMIN, OPENAPI_SOURCES: 'none' });
    const admin = await AdminHttpClient.signIn(server, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD);
    ({ proxy } = await seedProxy(admin, {
      upstream,
      app: { name: 'Big', slug: 'big' },
      config: {
        overrides: { '/api/v3/test/stream': ['get'], '/api/v3/test/slow': ['get'] },
        active: true,
      },
    }));
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.stop();
    await database?.drop();
  });

  it('streams a 64 MB response: a paused client holds the upstream back, memory stays flat', async () => {
    const size = 64 * 1024 * 1024;
    const before = server.rss();
    let received = 0;
    let duringPause = { upstreamSent: 0, growth: 0 };
    await new Promise<void>((resolve, reject) => {
      request(
        {
          host: '127.0.0.1',
          port: server.port,
          path: `/proxy/big/api/v3/test/stream?bytes=${size}`,
          headers: { 'x-api-key': proxy.key },
        },
        (res) => {
          expect(res.statusCode).toBe(200);
          res.once('data', () => {
            // The client stops reading: a streaming proxy stops reading the upstream too.
            res.pause();
            setTimeout(() => {
              duringPause = { upstreamSent: upstream.streamedBytes, growth: server.rss() - before };
              res.resume();
            }, 1500);
          });
          res.on('data', (chunk: Buffer) => (received += chunk.length));
          res.on('end', resolve);
          res.on('error', reject);
        },
      )
        .on('error', reject)
        .end();
    });
    expect(received).toBe(size);
    // A buffering proxy would have read all 64 MB from the upstream while the client paused.
    expect(duringPause.upstreamSent).toBeLessThan(24 * 1024 * 1024);
    expect(duringPause.growth).toBeLessThan(32 * 1024 * 1024);
  });

  it('finishes in-flight requests on SIGTERM, then exits 0', async () => {
    const inFlight = fetch(`${server.url}/proxy/big/api/v3/test/slow?ms=1500`, { headers: { 'x-api-key': proxy.key } });
    // In flight: the upstream has it (and sleeps 1.5 s before answering).
    await eventually('the slow call reaches the upstream', () =>
      upstream.requests.some((r) => r.url.includes('/api/v3/test/slow')),
    );
    const exited = server.stop();
    const response = await inFlight;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ slept: 1500 });
    expect(await exited).toBe(0);
    expect(server.output()).toContain('Shut down cleanly');
  });

  it('never printed the upstream key or a proxy key in its log', () => {
    const log = server.output();
    expect(log).toContain('request completed');
    expect(log).not.toContain(upstream.options.apiKey);
    expect(log).not.toContain(proxy.key);
  });
});
