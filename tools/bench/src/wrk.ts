import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { LoadResult, Mix } from './load';
import type { SeededApp } from './seed';

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on Linux). */
export const TICKS_PER_SECOND = 100;

const SCRIPT = resolve(__dirname, 'wrk.lua');
/** wrk's threads: one keeps the load generator's share of the two cores smallest (BENCH_WRK_THREADS). */
const THREADS = Number(process.env['BENCH_WRK_THREADS'] ?? 1);

/** What `wrk.lua`'s `done()` prints. */
interface WrkReport {
  durationUs: number;
  requests: number;
  bytes: number;
  errors: { connect: number; read: number; write: number; status: number; timeout: number };
  latencyUs: { mean: number; max: number; p50: number; p90: number; p99: number; p999: number };
  statuses: Record<string, number>;
  cpuTicks: number;
}

const appFiles = new WeakMap<SeededApp[], string>();
const dirs: string[] = [];

/** The apps as wrk.lua reads them ("slug key" per line), written once per list. */
export function appsFile(apps: SeededApp[]): string {
  let file = appFiles.get(apps);
  if (!file) {
    const dir = mkdtempSync(join(tmpdir(), 'arrbiter-bench-wrk-'));
    dirs.push(dir);
    file = join(dir, 'apps.txt');
    writeFileSync(file, apps.map((app) => `${app.slug} ${app.key}\n`).join(''));
    appFiles.set(apps, file);
  }
  return file;
}

/** Removes the apps files. */
export function cleanupWrk(): void {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** Whether a response status is what the mix expects (2xx for allowed calls, 403 for denied ones). */
function expected(mix: Mix, status: number): boolean {
  const allowed = status >= 200 && status < 300;
  if (mix === 'allowed' || mix === 'json1k' || mix === 'json1m') return allowed;
  if (mix === 'denied') return status === 403;
  return allowed || status === 403;
}

/**
 * Drives `url` with wrk (C, one event loop per thread) and `wrk.lua`'s mix: every request on another
 * app's proxy. Latencies are wrk's per-request ones (no coordinated-omission correction: it does not pace).
 */
export async function wrk(
  url: string,
  apps: SeededApp[],
  mix: Mix,
  connections: number,
  durationSeconds: number,
  /**
   * `true`, the passthrough: the upstream's own paths (`/api/v3/…`) with the one app's key, as a client
   * calls Servarr without Arrbiter, so that the upstream does the same work for the passthrough as for
   * Arrbiter. `alternate`: `apps` in the phases of `seconds` that start on an even multiple of it by the
   * wall clock, these apps in the others (`phases.ts`).
   */
  direct: boolean | { alternate: SeededApp[]; seconds: number } = false,
  /** Called with wrk's pid once it runs: the shape's phases pause and resume it (`SIGSTOP`, `SIGCONT`). */
  started?: (pid: number) => void,
): Promise<LoadResult> {
  const threads = Math.max(1, Math.min(THREADS, connections));
  const args = [
    `-t${threads}`,
    `-c${connections}`,
    `-d${Math.max(1, Math.round(durationSeconds))}s`,
    '--timeout',
    '10s',
    '-s',
    SCRIPT,
    url,
    '--',
    appsFile(apps),
    mix,
    ...(direct === true ? ['direct'] : []),
    ...(typeof direct === 'object' ? ['alternate', appsFile(direct.alternate), String(direct.seconds)] : []),
  ];
  const output = await new Promise<string>((resolvePromise, reject) => {
    const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid !== undefined) started?.(child.pid);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'ENOENT'
          ? new Error('wrk is not installed: apt-get install wrk (the benchmark drives its load with it)')
          : error,
      ),
    );
    child.once('close', (code) =>
      code === 0 ? resolvePromise(stdout) : reject(new Error(`wrk exited with ${code}: ${stderr || stdout}`)),
    );
  });
  const line = output.split('\n').find((l) => l.startsWith('WRK_JSON '));
  if (!line) throw new Error(`wrk printed no report:\n${output}`);
  const report = JSON.parse(line.slice('WRK_JSON '.length)) as WrkReport;
  let unexpected = 0;
  for (const [status, count] of Object.entries(report.statuses))
    if (!expected(mix, Number(status))) unexpected += count;
  const total = report.requests;
  return {
    requestsPerSecond: total / (report.durationUs / 1e6),
    p50: report.latencyUs.p50 / 1000,
    p99: report.latencyUs.p99 / 1000,
    unexpected,
    errors: report.errors.connect + report.errors.read + report.errors.write + report.errors.timeout,
    total,
    bytesPerResponse: report.bytes / Math.max(1, total),
    loadCpuPerRequest:
      report.cpuTicks < 0 ? undefined : (report.cpuTicks * 1e6) / TICKS_PER_SECOND / Math.max(1, total),
  };
}
