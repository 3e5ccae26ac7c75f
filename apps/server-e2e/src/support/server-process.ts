import { ChildProcess, spawn, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { listensOn, onFreePort } from './ports';

/** The production build, as `.ci/run` and the README start it. */
export const SERVER_MAIN = resolve(__dirname, '../../../../dist/apps/server/main.js');

/** The environment a child server gets: only what the test gives it (plus PATH and HOME). */
function childEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  // No automatic sync from the public template repository unless a test asks for one.
  return { PATH: process.env['PATH'], HOME: process.env['HOME'], TZ: 'UTC', TEMPLATE_REPOSITORY: 'none', ...env };
}

export interface ServerProcess {
  url: string;
  port: number;
  pid: number;
  /** Resident memory of the server process, in bytes (from /proc). */
  rss(): number;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL (a crash, an OOM kill): no shutdown of any kind; resolves once the process is gone. */
  kill(): Promise<void>;
}

/**
 * Starts `node dist/apps/server/main.js` (on `env.PORT`, else a free port) and waits until `/health` answers
 * from that process (not from another that holds the port).
 * `PUBLIC_URL` is `http://localhost:PORT` (the origin the admin clients write from) unless the test gives
 * its own, or `PUBLIC_URL: ''` to leave it unset.
 */
export async function startServer(env: NodeJS.ProcessEnv): Promise<ServerProcess> {
  // A port the test chose itself is never changed.
  if (env['PORT']) return startOn(env, Number(env['PORT']));
  return onFreePort((port) => startOn(env, port));
}

async function startOn(env: NodeJS.ProcessEnv, port: number): Promise<ServerProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--expose-gc', SERVER_MAIN], {
    env: childEnv({ HOST: '127.0.0.1', PORT: String(port), PUBLIC_URL: `http://localhost:${port}`, ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited with ${child.exitCode}:\n${output}`);
    try {
      // Another process may hold the port (taken between `freePort` and the child's bind): its answer
      // is not this server's, which will exit with EADDRINUSE once it tries to listen.
      if ((await fetch(`${url}/health`)).ok && listensOn(child.pid, port)) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not become healthy:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    port,
    pid: child.pid ?? 0,
    rss: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Runs a server command (`migrate`, `reset-password …`) to completion. */
export function runCommand(
  args: string[],
  env: NodeJS.ProcessEnv,
  input?: string,
): { status: number | null; output: string; stdout: string } {
  const result = spawnSync(process.execPath, [SERVER_MAIN, ...args], {
    env: childEnv(env),
    input,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}`, stdout: result.stdout };
}
