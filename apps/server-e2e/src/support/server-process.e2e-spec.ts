import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTestDatabase, TestDatabase } from '@arrbiter/server/testing';
import { listensOn } from './ports';
import { startServer } from './server-process';

/**
 * The support every server suite starts Arrbiter with. A port found free can be taken by another
 * suite's process before the child binds it; that process then answers `/health` too, and a suite that
 * took its answer talked to the wrong server (CI, 2026-11-30: known-clients' sign-in answered 403, the
 * Origin of another Arrbiter's PUBLIC_URL).
 */
describe('startServer', () => {
  let database: TestDatabase;
  let impostor: Server;
  let port: number;

  beforeAll(async () => {
    database = await createTestDatabase();
    // Another process on the port, healthy by every answer.
    impostor = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    await new Promise<void>((done) => impostor.listen(0, '127.0.0.1', done));
    port = (impostor.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((done) => impostor.close(done));
    await database.drop();
  });

  it('tells which process holds a listening port', () => {
    expect(listensOn(process.pid, port)).toBe(true);
    expect(listensOn(process.pid, port + 1 === 65536 ? 1 : port + 1)).toBe(false);
    expect(listensOn(1 << 22, port)).toBe(false);
  });

  it('does not take another process on its port for the server it started', async () => {
    await expect(startServer({ ...database.env, PORT: String(port) })).rejects.toThrow(/EADDRINUSE/);
  });
});
