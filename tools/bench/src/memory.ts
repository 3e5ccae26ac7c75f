import { readdirSync, readFileSync } from 'node:fs';

/**
 * Memory of a process tree from /proc (Linux): proportional set size (PSS, `/proc/<pid>/smaps_rollup`),
 * which shares every shared page among the processes mapping it, so that the PSS of a server and its
 * children adds up to what they cost the machine together (a postgres server's shared buffers are
 * counted once, not once per backend as resident memory would). As root, smaps_rollup of another
 * user's process (the embedded postgres runs as `postgres`) is readable.
 */

/** What a process tree held at one moment. */
export interface MemorySample {
  /** PSS of the processes, summed, in bytes. */
  pss: number;
  /** PSS of the root process alone, in bytes. */
  rootPss: number;
  /** The sum of the processes' VmHWM (each one's peak resident memory, shared pages in each), in bytes. */
  hwm: number;
  processes: number;
}

const KB = 1024;

function readOrEmpty(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return ''; // the process has exited since it was listed
  }
}

/** `field:   123 kB` of a /proc file, in bytes; 0 when absent. */
function kbField(text: string, field: string): number {
  return Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * KB;
}

/** `pid` and every process descended from it, found through the parent pids of /proc/<pid>/stat. */
export function processTree(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = readOrEmpty(`/proc/${entry}/stat`);
    // Field 4, after the parenthesised command name (which may hold spaces and parentheses).
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (!Number.isFinite(ppid)) continue;
    const siblings = children.get(ppid) ?? [];
    siblings.push(Number(entry));
    children.set(ppid, siblings);
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i += 1) tree.push(...(children.get(tree[i]) ?? []));
  return tree;
}

/** The memory of `pid` alone, or with its descendants (`tree`), now. */
export function sampleMemory(pid: number, tree: boolean): MemorySample {
  const pids = tree ? processTree(pid) : [pid];
  let pss = 0;
  let rootPss = 0;
  let hwm = 0;
  let processes = 0;
  for (const p of pids) {
    const rollup = readOrEmpty(`/proc/${p}/smaps_rollup`);
    if (rollup === '') continue;
    const own = kbField(rollup, 'Pss');
    pss += own;
    if (p === pid) rootPss = own;
    hwm += kbField(readOrEmpty(`/proc/${p}/status`), 'VmHWM');
    processes += 1;
  }
  return { pss, rootPss, hwm, processes };
}

/**
 * Samples a process tree every `intervalMs` until `stop()`, which returns the sample of the largest
 * PSS (and the largest VmHWM sum seen, for reference). Reading smaps_rollup walks the page tables: a
 * few milliseconds for the whole tree, on the bench's event loop (the load comes from wrk, another process).
 */
export function samplePeak(
  pid: number,
  tree: boolean,
  intervalMs = 150,
): { stop(): MemorySample & { samples: number } } {
  let peak = sampleMemory(pid, tree);
  let hwm = peak.hwm;
  let samples = 1;
  const take = () => {
    const now = sampleMemory(pid, tree);
    samples += 1;
    hwm = Math.max(hwm, now.hwm);
    if (now.pss > peak.pss) peak = now;
  };
  const timer = setInterval(take, intervalMs);
  return {
    stop: () => {
      clearInterval(timer);
      take();
      return { ...peak, hwm, samples };
    },
  };
}
