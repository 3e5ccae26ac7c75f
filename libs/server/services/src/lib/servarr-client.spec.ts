import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { floodingServer } from '@arrbiter/tools/fake-servarr';
import { explainNetworkError, ServarrClient } from './servarr-client';

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

describe('ServarrClient failure messages', () => {
  async function closedPort(): Promise<number> {
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((done) => server.close(() => done()));
    return port;
  }

  async function answering(status: number, body = '{}') {
    const server = createServer((_req, res) => res.writeHead(status, { 'content-type': 'application/json' }).end(body));
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    return { server, port: (server.address() as AddressInfo).port };
  }

  async function failure(run: () => Promise<unknown>): Promise<{ status: number; message: string; cause: unknown }> {
    try {
      await run();
    } catch (error) {
      const e = error as { getStatus(): number; message: string; cause: unknown };
      return { status: e.getStatus(), message: e.message, cause: e.cause };
    }
    throw new Error('expected a failure');
  }

  it('names a bad port in words and keeps the code', async () => {
    const seen = await failure(() => new ServarrClient().discover('http://127.0.0.1:1', 'key'));
    expect(seen.status).toBe(502);
    expect(seen.message).toBe(
      'Arrbiter could not connect to 127.0.0.1 port 1: the port is not valid: it is reserved for another protocol and blocked (bad port)',
    );
    expect(seen.cause).toMatchObject({ code: 'bad port' });
  });

  it('says nothing answered when the connection is refused', async () => {
    const port = await closedPort();
    const seen = await failure(() => new ServarrClient().discover(`http://127.0.0.1:${port}`, 'key'));
    expect(seen.message).toBe(
      `Arrbiter could not connect to 127.0.0.1 port ${port}: nothing answered, the connection was refused (ECONNREFUSED): is the service running on that port?`,
    );
    expect(seen.cause).toMatchObject({ code: 'ECONNREFUSED' });
  });

  it('says a host name was not found (DNS)', async () => {
    const seen = await failure(() => new ServarrClient().discover('http://radarr.invalid:7878', 'key'));
    expect(seen.message).toMatch(
      /^Arrbiter could not connect to radarr\.invalid port 7878: the host name .*\(DNS lookup failed/,
    );
  });

  it('says the secure connection failed when https meets a plain HTTP server', async () => {
    const { server, port } = await answering(200);
    try {
      const seen = await failure(() => new ServarrClient().discover(`https://127.0.0.1:${port}`, 'key'));
      expect(seen.message).toMatch(
        new RegExp(
          `^Arrbiter could not connect to 127\\.0\\.0\\.1 port ${port}: the secure \\(HTTPS\\) connection failed \\(\\w+\\)`,
        ),
      );
    } finally {
      await new Promise<void>((done) => server.close(() => done()));
    }
  });

  it('says the key was refused on a 401', async () => {
    const { server, port } = await answering(401);
    try {
      const seen = await failure(() => new ServarrClient().discover(`http://127.0.0.1:${port}`, 'key'));
      expect(seen.status).toBe(422);
      expect(seen.message).toBe(
        `127.0.0.1:${port} refused the API key (HTTP 401): copy it again from the service's Settings → General`,
      );
    } finally {
      await new Promise<void>((done) => server.close(() => done()));
    }
  });

  it('says an answering server is not a Servarr', async () => {
    const { server, port } = await answering(200, '<html></html>');
    try {
      const seen = await failure(() => new ServarrClient().discover(`http://127.0.0.1:${port}`, 'key'));
      expect(seen.message).toBe(
        `http://127.0.0.1:${port} answers, but not like Sonarr, Radarr or another Servarr (/api answered 200 without a current API version): check the base URL and URL base`,
      );
    } finally {
      await new Promise<void>((done) => server.close(() => done()));
    }
  });

  it('classifies a timeout', () => {
    const timeout = Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' });
    expect(explainNetworkError(timeout, 5000)).toEqual({
      code: 'timeout',
      reason: 'nothing answered within 5 s (timeout)',
    });
  });

  it('finds the code of an aggregate cause (both addresses of localhost refused)', () => {
    const error = Object.assign(new TypeError('fetch failed'), {
      cause: Object.assign(new AggregateError([Object.assign(new Error('x'), { code: 'ECONNREFUSED' })]), {}),
    });
    expect(explainNetworkError(error).code).toBe('ECONNREFUSED');
  });
});
