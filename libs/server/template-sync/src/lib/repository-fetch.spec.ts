import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { GitHttpServer, TestGitRepository } from '@arrbiter/server/testing';
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

describe('fetchTemplateRepository with a token (TEMPLATE_REPOSITORY_TOKEN)', () => {
  const TOKEN = 'tok_canary_Zq81xL0p';
  const settings = (url: string) => ({ url, ref: 'main', path: '', intervalMinutes: 0 });
  /** Every spelling of the token a server could echo. */
  const spellings = (username: string) => [
    TOKEN,
    encodeURIComponent(TOKEN),
    Buffer.from(`${username}:${TOKEN}`).toString('base64').replace(/=+$/, ''),
    Buffer.from(TOKEN).toString('base64').replace(/=+$/, ''),
  ];
  let work: string;
  let server: GitHttpServer;

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'arrbiter-token-'));
    await TestGitRepository.create(join(work, 'git', 'templates'), resolve(__dirname, '../testing/template-repo'));
    server = await GitHttpServer.start(join(work, 'git'), { token: TOKEN });
  });
  afterAll(async () => {
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('answers the server’s 401 with the token (isomorphic-git onAuth) and clones', async () => {
    const auth = { origin: server.url, username: 'x-access-token', token: TOKEN };
    const fetched = await fetchTemplateRepository(
      settings(`${server.url}/templates`),
      work,
      undefined,
      undefined,
      auth,
    );
    expect(fetched.templates.has('homepage')).toBe(true);
    expect(server.authorizations).toContain(`Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`);
  });

  it('sends the token to no other origin', async () => {
    const before = server.authorizations.length;
    const auth = { origin: 'https://git.example.com', username: 'x-access-token', token: TOKEN };
    const fetching = fetchTemplateRepository(settings(`${server.url}/templates`), work, undefined, undefined, auth);
    await expect(fetching).rejects.toThrow(RepositoryFetchError);
    expect(server.authorizations.length).toBe(before);
  });

  it('keeps the token out of its error, even from a server that echoes it in every spelling', async () => {
    const echo = createServer((req, res) => {
      const authorization = req.headers.authorization;
      if (!authorization) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
        return;
      }
      const sent = authorization.replace(/^Basic /, '');
      const decoded = Buffer.from(sent, 'base64').toString();
      res
        .writeHead(500, `Echo ${decoded} ${sent} ${encodeURIComponent(TOKEN)}`, { 'content-type': 'text/plain' })
        .end(`you sent ${decoded} ${authorization}`);
    });
    await new Promise<void>((done) => echo.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
    try {
      for (const username of ['x-access-token', 'oauth2']) {
        const auth = { origin: url, username, token: TOKEN };
        const error = (await fetchTemplateRepository(
          settings(`${url}/templates.git`),
          work,
          undefined,
          undefined,
          auth,
        ).then(
          () => undefined,
          (e: unknown) => e,
        )) as Error;
        expect(error).toBeInstanceOf(RepositoryFetchError);
        expect(error.message).toMatch(/^cannot fetch .*: the server answered HTTP Error: 500 Echo/);
        for (const spelling of spellings(username)) expect(error.message).not.toContain(spelling);
      }
      // A server that refuses the token: said so, once (no retry with the same token).
      const refusing = { origin: server.url, username: 'x-access-token', token: `${TOKEN}-wrong` };
      const refused = fetchTemplateRepository(
        settings(`${server.url}/templates`),
        work,
        undefined,
        undefined,
        refusing,
      );
      await expect(refused).rejects.toThrow('the server refused the credentials');
    } finally {
      echo.closeAllConnections();
      echo.close();
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
