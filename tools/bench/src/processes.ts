import { ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { freePort } from '@arrbiter/tools/fake-servarr';

export const ROOT = resolve(__dirname, '../../..');
/** The build under test: the production build, or another one to compare (`BENCH_SERVER_MAIN`). */
export const SERVER_MAIN = resolve(ROOT, process.env['BENCH_SERVER_MAIN'] ?? 'dist/apps/server/main.js');
const TS_NODE = require.resolve('ts-node/dist/bin');

export interface Child {
  name: string;
  url: string;
  process: ChildProcess;
  /** Resident memory now, in bytes. */
  rss(): number;
  /** CPU time used so far (user + system), in milliseconds. */
  cpuMs(): number;
  stop(): Promise<void>;
}

/** Every child process still running, so that an interrupted bench can stop them (`killChildren`). */
const running = new Set<ChildProcess>();

function track(child: ChildProcess): ChildProcess {
  running.add(child);
  child.once('exit', () => running.delete(child));
  return child;
}

/** Sends SIGTERM to every child still running: what an interrupted bench does before it exits. */
export function killChildren(): void {
  for (const child of running) if (child.exitCode === null) child.kill('SIGTERM');
}

/** Waits for `url` to answer; a child that does not start is stopped, not left behind. */
async function ready(url: string, child: ChildProcess, name: string): Promise<void> {
  try {
    await waitFor(url, child, name);
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGTERM');
    throw error;
  }
}

async function waitFor(url: string, child: ChildProcess, name: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    try {
      const response = await fetch(url);
      await response.body?.cancel();
      return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`${name} did not start`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

function wrap(name: string, url: string, child: ChildProcess): Child {
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return {
    name,
    url,
    process: child,
    rss: () => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024,
    cpuMs: () => {
      // Fields 14 and 15 of /proc/<pid>/stat, after the parenthesised command name, in clock ticks (100/s).
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) * 10;
    },
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Runs one of the benchmark's own TypeScript scripts (upstream, passthrough) as a child process. */
export async function startScript(name: string, script: string, args: string[], probe: string): Promise<Child> {
  // The IPC channel closes when the bench's process ends, however it ends: the script then exits.
  // A `.mjs` script runs on node alone; a TypeScript one through ts-node (which loads `repl` and `domain`).
  const runner = script.endsWith('.mjs') ? [] : [TS_NODE];
  const child = track(
    spawn(process.execPath, [...runner, resolve(__dirname, script), ...args], {
      cwd: ROOT,
      env: { ...process.env, NODE_OPTIONS: process.env['BENCH_NODE_OPTIONS'] ?? '' },
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    }),
  );
  await ready(probe, child, name);
  return wrap(name, probe.replace(/\/[^/]*$/, ''), child);
}

/** The Node.js flags of `npm start` (`node <flags> dist/apps/server/main.js`). */
export const START_FLAGS: readonly string[] = (
  JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }
).scripts.start
  .split(' ')
  .filter((word) => word.startsWith('--'));

/**
 * Starts the production build of Arrbiter; resolves with the time until `/health` answered. Its
 * standard output (the log: one access line per call at `LOG_LEVEL=info`) goes to `logFile`, as in
 * production where a container's output is written to a file, not to /dev/null.
 */
export async function startArrbiter(
  name: string,
  env: NodeJS.ProcessEnv,
  logFile: string,
  /** Another build, and V8 flags beside production's (`tools/bench/src/ab.ts` compares two). */
  variant: { main?: string; nodeFlags?: string[] } = {},
): Promise<{ child: Child; startupMs: number }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const log = openSync(logFile, 'a');
  const started = performance.now();
  // Started as production starts it: with the V8 flags of `npm start` (the image's CMD has the same).
  const child = track(
    spawn(process.execPath, [...START_FLAGS, ...(variant.nodeFlags ?? []), variant.main ?? SERVER_MAIN], {
      cwd: ROOT,
      env: {
        PATH: process.env['PATH'],
        HOME: process.env['HOME'],
        // Lets a developer profile the server under load (BENCH_NODE_OPTIONS=--cpu-prof, every process)
        // or try V8 flags on Arrbiter alone (BENCH_ARRBITER_NODE_OPTIONS).
        NODE_OPTIONS: [process.env['BENCH_NODE_OPTIONS'], process.env['BENCH_ARRBITER_NODE_OPTIONS']]
          .filter(Boolean)
          .join(' '),
        HOST: '127.0.0.1',
        PORT: String(port),
        PUBLIC_URL: url,
        ...env,
      },
      stdio: ['ignore', log, 'inherit'],
    }),
  );
  closeSync(log); // the child has its own copy of the descriptor
  await ready(`${url}/health`, child, name);
  return { child: wrap(name, url, child), startupMs: performance.now() - started };
}

/** What the machine did apart from some processes, in milliseconds of CPU (`machineCpu`). */
export interface MachineCpu {
  /** CPU time of every other process so far, by pid (one that starts and ends between two readings is not seen). */
  byPid: Map<number, number>;
  /** Steal (a neighbour on the same host), and irq + softirq: the kernel's interrupt and network work. */
  steal: number;
  network: number;
}

/**
 * The machine's CPU time so far, from /proc, apart from the processes of `exclude` (the bench's own and
 * the processes a cell measures; wrk's CPU is reported by wrk): the other processes one by one, steal,
 * and the kernel's interrupt and network work (irq, softirq). `othersMs` turns two readings into "the
 * rest of the machine", which leaves the network work out: it is mostly the bench's own loopback
 * traffic (16–19 % of a core at 4,000–6,000 proxied calls a second, 2026-11-28, alike for every target),
 * partly charged to whichever process was running, so the machine's total less the bench's processes
 * (the measure until then) read 5–15 % with nothing else running. `ksoftirqd` threads, which run that
 * work when it is deferred, are left out too.
 */
export function machineCpu(exclude: ReadonlySet<number>): MachineCpu {
  const byPid = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || exclude.has(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      continue; // gone since the listing
    }
    const close = stat.lastIndexOf(')');
    if (stat.slice(stat.indexOf('(') + 1, close).startsWith('ksoftirqd')) continue;
    const fields = stat.slice(close + 2).split(' ');
    // utime and stime: fields 14 and 15 of proc(5), 11 and 12 after the command. Not the reaped
    // children's (cutime, cstime): a child's whole life lands there at once when it is reaped.
    byPid.set(pid, (Number(fields[11]) + Number(fields[12])) * 10);
  }
  const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const [, , , , , irq, softirq, steal] = fields.map(Number);
  return { byPid, steal: (steal || 0) * 10, network: (irq + softirq) * 10 };
}

/** The rest of the machine between two readings: other processes' CPU and steal, in milliseconds. */
export function othersMs(before: MachineCpu, after: MachineCpu): number {
  let total = after.steal - before.steal;
  for (const [pid, ms] of after.byPid) {
    const earlier = before.byPid.get(pid) ?? 0;
    // A pid used again by a new process counts from zero.
    total += ms >= earlier ? ms - earlier : ms;
  }
  return total;
}

/** What a process did on the CPU between two points: instructions retired and cycles spent. */
export interface CpuCounts {
  instructions: number;
  cycles: number;
}

/**
 * Counts the instructions a process retires and the cycles it spends until `stop()` (Linux `perf stat`):
 * instructions measure its work and, unlike time, hardly move with the other processes sharing the
 * cores; cycles per instruction show how well that work runs. Undefined when perf is not installed or
 * not permitted.
 */
export function countCpu(pid: number | undefined): { stop(): Promise<CpuCounts | undefined> } {
  if (pid === undefined) return { stop: async () => undefined };
  const perf = spawn('perf', ['stat', '-x', ',', '-e', 'instructions,cycles', '-p', String(pid)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let output = '';
  perf.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const ended = new Promise<CpuCounts | undefined>((resolve) => {
    perf.once('error', () => resolve(undefined));
    perf.once('close', () => {
      const instructions = /^(\d+),[^,]*,instructions/m.exec(output);
      const cycles = /^(\d+),[^,]*,cycles/m.exec(output);
      resolve(
        instructions && cycles ? { instructions: Number(instructions[1]), cycles: Number(cycles[1]) } : undefined,
      );
    });
  });
  return {
    stop: () => {
      if (perf.exitCode === null && perf.pid !== undefined) perf.kill('SIGINT');
      return ended;
    },
  };
}
