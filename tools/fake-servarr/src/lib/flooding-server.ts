import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FloodingServerOptions {
  /** How many bytes of `chunk` to send at most after the head. */
  total: number;
  contentType: string;
  /** Written first (e.g. the start of a JSON document). */
  head: string;
  /** Repeated until `total` or until the client hangs up. */
  chunk: Buffer;
  /** Written last, if the client took everything. */
  tail: string;
}

/** What the server managed to send: `written` is what the client took plus the sockets' buffers. */
export interface FloodingState {
  written: number;
  closed: boolean;
  finished: boolean;
}

/**
 * A hostile HTTP server for body-limit tests: every answer is a chunked body (no Content-Length) of up
 * to `total` bytes, written only as fast as the client reads (backpressure), so a client that stops at
 * its limit and hangs up shows as `closed` with `written` far below `total`.
 */
export async function floodingServer(options: FloodingServerOptions) {
  const seen: FloodingState = { written: 0, closed: false, finished: false };
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': options.contentType });
    res.on('close', () => (seen.closed = true));
    res.write(options.head);
    const pump = (): void => {
      while (!seen.closed && seen.written < options.total) {
        seen.written += options.chunk.length;
        if (!res.write(options.chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      if (!seen.closed) {
        seen.finished = true;
        res.end(options.tail);
      }
    };
    pump();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    /** Resolves once the client hung up or took everything (at most 10 s). */
    settled: async (): Promise<void> => {
      for (let waited = 0; !seen.closed && !seen.finished && waited < 10_000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
    },
    stop: () => new Promise<void>((done) => server.close(() => done())),
  };
}
