import { floodingServer } from '@arrbiter/tools/fake-servarr';
import { Logger } from '@nestjs/common';
import type { AppConfig } from '@arrbiter/server/config';
import type { ChangeBus } from '@arrbiter/server/database';
import type { Repository } from 'typeorm';
import { OpenApiDocumentEntity } from './entities/openapi-document.entity';
import { CatalogService } from './catalog.service';

const MiB = 1024 * 1024;

/** An OPENAPI_SOURCES server whose answer is a chunked body (no Content-Length) of `total` bytes. */
function floodingSource(total: number) {
  return floodingServer({
    total,
    contentType: 'application/json',
    head: '{"openapi":"3.0.1","paths":{},"padding":"',
    chunk: Buffer.alloc(64 * 1024, 'a'),
    tail: '"}',
  });
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
      documents as unknown as Repository<OpenApiDocumentEntity>,
      { openapiSources: [`${source.url}/{Name}/{version}.json`] } as unknown as AppConfig,
      { publish: () => Promise.resolve(), subscribe: () => undefined } as unknown as ChangeBus,
    );
    try {
      await catalog.ensure('radarr', ['v3'], () => Promise.resolve(undefined));
      expect(warnings).toContainEqual(expect.stringContaining(`larger than ${10 * MiB} bytes`));
      expect(upserts).toEqual([]);
      await source.settled();
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
