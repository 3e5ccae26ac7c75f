import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { floodingServer } from '@arrbiter/tools/fake-servarr';
import { ServarrClient } from './servarr-client';

const MiB = 1024 * 1024;

/** An upstream whose every answer is a chunked body (no Content-Length) of `total` bytes. */
function floodingUpstream(total: number) {
  return floodingServer({
    total,
    contentType: 'application/json',
    head: '{"current":"v3","padding":"',
    chunk: Buffer.alloc(64 * 1024, 'a'),
    tail: '"}',
  });
}

describe('ServarrClient body limit', () => {
  it('stops reading a chunked answer without Content-Length once it passes 1 MiB, and closes the connection', async () => {
    const total = 64 * MiB;
    const upstream = await floodingUpstream(total);
    try {
      await expect(new ServarrClient().discover(upstream.url, 'key')).rejects.toThrow(
        `/api answered with more than ${MiB} bytes: not a Servarr`,
      );
      await upstream.settled();
      // The client hung up: the upstream never got to send the whole body, only the limit plus what
      // the socket buffers held.
      expect(upstream.seen).toMatchObject({ closed: true, finished: false });
      expect(upstream.seen.written).toBeLessThan(MiB + 16 * MiB);
    } finally {
      await upstream.stop();
    }
  });

  it('allows the OpenAPI description a larger limit than discovery', async () => {
    const upstream = await floodingUpstream(64 * MiB);
    try {
      await expect(new ServarrClient().getJson(upstream.url, '/api/v3/openapi.json', 'key', 10 * MiB)).rejects.toThrow(
        `/api/v3/openapi.json answered with more than ${10 * MiB} bytes: not a Servarr`,
      );
      await upstream.settled();
      expect(upstream.seen).toMatchObject({ closed: true, finished: false });
      expect(upstream.seen.written).toBeGreaterThan(10 * MiB);
      expect(upstream.seen.written).toBeLessThan(10 * MiB + 16 * MiB);
    } finally {
      await upstream.stop();
    }
  });

  it('refuses a declared Content-Length over the limit without reading the body', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(400 * MiB) });
      res.write('{');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      await expect(new ServarrClient().discover(url, 'key')).rejects.toThrow(
        `/api answered with ${400 * MiB} bytes: not a Servarr`,
      );
    } finally {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    }
  });
});
