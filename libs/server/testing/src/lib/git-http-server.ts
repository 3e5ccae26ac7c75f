import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import git from 'isomorphic-git';

const AUTHOR = { name: 'Arrbiter tests', email: 'tests@arrbiter.invalid' };

/** A git repository on disk that tests commit to (isomorphic-git: no git binary needed to write it). */
export class TestGitRepository {
  private constructor(readonly dir: string) {}

  /** A new repository on branch `main` holding a copy of `source`, committed. */
  static async create(dir: string, source?: string): Promise<TestGitRepository> {
    mkdirSync(dir, { recursive: true });
    await git.init({ fs, dir, defaultBranch: 'main' });
    const repo = new TestGitRepository(dir);
    if (source) {
      cpSync(source, dir, { recursive: true });
      await repo.commit('Initial templates');
    }
    return repo;
  }

  write(file: string, content: string): void {
    mkdirSync(join(this.dir, file, '..'), { recursive: true });
    fs.writeFileSync(join(this.dir, file), content);
  }

  remove(file: string): void {
    rmSync(join(this.dir, file));
  }

  /** Stages every change (additions and deletions) and commits; returns the commit id. */
  async commit(message: string): Promise<string> {
    const status = await git.statusMatrix({ fs, dir: this.dir });
    for (const [file, , workdir] of status) {
      if (workdir === 0) await git.remove({ fs, dir: this.dir, filepath: file });
      else await git.add({ fs, dir: this.dir, filepath: file });
    }
    return git.commit({ fs, dir: this.dir, message, author: AUTHOR });
  }
}

/**
 * Serves the repositories under a folder over git's smart HTTP protocol with `git http-backend`
 * (the one git binary use in the project: a real git server for the sync tests). Repository
 * `<root>/<name>` is at `<url>/<name>`.
 */
export class GitHttpServer {
  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly counter: { requests: number; authorizations: string[] },
  ) {}

  /**
   * `options.token`: every request must carry it as the password (or user) of Basic credentials, as a
   * git host asks for a token; others get 401 with a Basic challenge.
   */
  static async start(root: string, options: { token?: string } = {}): Promise<GitHttpServer> {
    const counter = { requests: 0, authorizations: [] as string[] };
    const server = createServer((req, res) => {
      counter.requests += 1;
      const authorization = req.headers.authorization;
      if (authorization) counter.authorizations.push(authorization);
      if (options.token !== undefined) {
        const [user = '', password = ''] = Buffer.from((authorization ?? '').replace(/^Basic /i, ''), 'base64')
          .toString()
          .split(':');
        if (password !== options.token && user !== options.token) {
          res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
          return;
        }
      }
      serve(root, req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return new GitHttpServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, counter);
  }

  /** Requests answered so far. */
  get requests(): number {
    return this.counter.requests;
  }

  /** The `Authorization` headers received so far. */
  get authorizations(): readonly string[] {
    return this.counter.authorizations;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

function serve(root: string, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const cgi = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env['PATH'],
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method ?? 'GET',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      REMOTE_ADDR: req.socket.remoteAddress ?? '',
      GIT_CONFIG_NOSYSTEM: '1',
      HOME: root,
    },
  });
  req.pipe(cgi.stdin);
  let head = Buffer.alloc(0);
  let headersDone = false;
  cgi.stdout.on('data', (chunk: Buffer) => {
    if (headersDone) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    headersDone = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.writeHead(status);
    res.write(head.subarray(end + 4));
  });
  cgi.on('close', () => {
    if (!headersDone) res.writeHead(500);
    res.end();
  });
  cgi.on('error', () => {
    if (!res.headersSent) res.writeHead(500);
    res.end();
  });
}
