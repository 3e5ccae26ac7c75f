import { createServer, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Logger } from '@nestjs/common';
import type { AppConfig } from '@arrbiter/server/config';
import type { ChangeBus } from '@arrbiter/server/database';
import type { DataSource } from 'typeorm';
import { CatalogService } from './catalog.service';

const MiB = 1024 * 1024;

/**
 * An OPENAPI_SOURCES server whose answer is a chunked body (no Content-Length) of `total` bytes, written
 * only as fast as the client reads (backpressure): `written` is what the client took plus socket buffers.
 */
async function floodingSource(total: number) {
  const seen = { written: 0, closed: false, finished: false };
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.on('close', () => (seen.closed = true));
    res.write('{"openapi":"3.0.1","paths":{},"padding":"');
    const pump = (): void => {
      while (!seen.closed && seen.written < total) {
        seen.written += chunk.length;
        if (!res.write(chunk)) {
          res.once('drain', pump);
          return;
        }
      }
      if (!seen.closed) {
        seen.finished = true;
        res.end('"}');
      }
    };
    pump();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    stop: () => new Promise<void>((done) => server.close(() => done())),
  };
}

async function until(condition: () => boolean): Promise<void> {
  for (let waited = 0; !condition() && waited < 10_000; waited += 20) await new Promise((r) => setTimeout(r, 20));
}

describe('CatalogService: descriptions from OPENAPI_SOURCES', () => {
  it('stops reading a chunked description without Content-Length once it passes 10 MiB, and closes the connection', async () => {
    const source = await floodingSource(96 * MiB);
    const warnings: string[] = [];
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation((message: unknown) => {
      warnings.push(String(message));
    });
    const upserts: unknown[] = [];
    const documents = { find: () => Promise.resolve([]), upsert: (row: unknown) => upserts.push(row) };
    const catalog = new CatalogService(
      { getRepository: () => documents } as unknown as DataSource,
      { openapiSources: [`${source.url}/{Name}/{version}.json`] } as unknown as AppConfig,
      { publish: () => Promise.resolve() } as unknown as ChangeBus,
    );
    try {
      await catalog.ensure('radarr', ['v3'], () => Promise.resolve(undefined));
      expect(warnings).toContainEqual(expect.stringContaining(`larger than ${10 * MiB} bytes`));
      expect(upserts).toEqual([]);
      await until(() => source.seen.closed || source.seen.finished);
      // The fetch hung up: the source never got to send the whole body, only the limit plus what the
      // socket buffers held.
      expect(source.seen).toMatchObject({ closed: true, finished: false });
      expect(source.seen.written).toBeLessThan(10 * MiB + 16 * MiB);
    } finally {
      warn.mockRestore();
      await source.stop();
    }
  });
});
