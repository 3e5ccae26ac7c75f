import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { floodingServer } from '@arrbiter/tools/fake-servarr';
import { fetchTemplateRepository, RepositoryFetchError } from './repository-fetch';

const MiB = 1024 * 1024;

/** One pkt-line (4 hex digits of length, then the payload). */
function pktLine(payload: string): string {
  return (payload.length + 4).toString(16).padStart(4, '0') + payload;
}

/** A git smart-HTTP server whose ref advertisement never ends: valid pkt-lines, chunked (no Content-Length). */
function floodingGitServer(total: number) {
  const refs = Array.from({ length: 512 }, (_, i) => pktLine(`${'1'.repeat(40)} refs/heads/b${i}\n`)).join('');
  return floodingServer({
    total,
    contentType: 'application/x-git-upload-pack-advertisement',
    head:
      pktLine('# service=git-upload-pack\n') +
      '0000' +
      pktLine(`${'1'.repeat(40)} HEAD\0side-band-64k shallow symref=HEAD:refs/heads/main\n`),
    chunk: Buffer.from(refs),
    tail: '0000',
  });
}

describe('fetchTemplateRepository over HTTP', () => {
  let work: string;
  beforeEach(() => (work = mkdtempSync(join(tmpdir(), 'arrbiter-fetch-'))));
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  it('stops reading an endless chunked answer once past the byte budget, and closes the connection', async () => {
    const server = await floodingGitServer(64 * MiB);
    try {
      const fetching = fetchTemplateRepository(
        { url: `${server.url}/templates.git`, ref: 'main', path: '', intervalMinutes: 0 },
        work,
        { timeoutMs: 60_000, maxBytes: MiB },
      );
      await expect(fetching).rejects.toThrow(RepositoryFetchError);
      await expect(fetching).rejects.toThrow('the repository is larger than 1 MB');
      await server.settled();
      // The fetch hung up: the server never got to send the whole body, only the budget plus what the
      // socket buffers held.
      expect(server.seen).toMatchObject({ closed: true, finished: false });
      expect(server.seen.written).toBeLessThan(MiB + 16 * MiB);
    } finally {
      await server.stop();
    }
  });
});

describe('fetchTemplateRepository from a local directory', () => {
  let work: string;
  beforeEach(() => (work = mkdtempSync(join(tmpdir(), 'arrbiter-local-'))));
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  it('reads only inside the directories the rules allow, resolving symbolic links at read time', async () => {
    mkdirSync(join(work, 'root', 'templates', 'radarr'), { recursive: true });
    writeFileSync(join(work, 'root', 'templates', 'radarr', 'a.json'), JSON.stringify({ '/api/v3/movie': ['get'] }));
    symlinkSync('/etc', join(work, 'root', 'elsewhere'));
    const rules = { templateRoot: join(work, 'root'), operatorDirectory: undefined };
    const read = (url: string, path = '') =>
      fetchTemplateRepository({ url, ref: '', path, intervalMinutes: 0 }, work, undefined, rules);

    expect([...(await read(join(work, 'root'), 'templates')).templates.keys()]).toEqual(['a']);
    for (const [url, path] of [
      ['/etc', ''],
      [join(work, 'root', 'elsewhere'), ''],
      [join(work, 'root'), 'elsewhere'],
      [`${join(work, 'root')}/..`, ''],
    ]) {
      await expect(read(url, path)).rejects.toThrow(/is not a directory inside TEMPLATE_ROOT/);
    }
    // Without TEMPLATE_ROOT, only the operator's own directory.
    await expect(
      fetchTemplateRepository({ url: join(work, 'root'), ref: '', path: '', intervalMinutes: 0 }, work, undefined, {
        templateRoot: undefined,
        operatorDirectory: join(work, 'root', 'templates'),
      }),
    ).rejects.toThrow(/TEMPLATE_ROOT is not set/);
  });
});
