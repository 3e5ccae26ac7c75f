import { closeSync, fstatSync, openSync, readdirSync, readFileSync, readSync, statSync } from 'node:fs';

/**
 * A feature's cost measured within one process: the load runs without a break while the feature is on
 * in one phase and off in the next, phase after phase, and the process's CPU time and the calls it
 * answered are read at every phase's edge. Two processes of one build differ by tens of µs a call for
 * as long as they run (the bench's control pair read −122 to +63 µs between cells on 2026-11-29, its
 * median +3.7), more than the features' budgets (2, 3 and 5 µs); one process has no such difference
 * with itself.
 *
 * A phase lasts a whole number of seconds and starts on a multiple of it by the wall clock, so that the
 * bench, which reads the process at the edges, and wrk (`wrk.lua`'s `alternate`), which switches the
 * proxies it calls at them, agree on the phases without talking: a phase whose start, in seconds since
 * the epoch divided by the phase length, is even has the feature on.
 */

/** One phase: the feature on or off, the CPU time the process spent in it, and the calls it answered. */
export interface Phase {
  on: boolean;
  cpuNs: number;
  calls: number;
  /** How long it lasted by the bench's clock: one read late holds calls of the next phase (`phaseEffects` leaves it out). */
  ms: number;
}

/**
 * CPU time of all of a process's threads so far, in nanoseconds: the first field of each thread's
 * `/proc/<pid>/task/<tid>/schedstat`. `/proc/<pid>/stat` counts in 10 ms ticks, about 1 % of a
 * one-second phase's CPU (2 µs a call), too coarse a grain for budgets of 2 µs.
 */
export function threadsCpuNs(pid: number): number {
  let total = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // A thread that ended since the listing: its time is gone with it (Node's threads live as long as the process).
    }
  }
  return total;
}

/** What an access line holds (one per call answered), and what a switch's line does (`BENCH_TOGGLE`). */
const ACCESS_MSG = '"msg":"proxy request"';
const TOGGLE_LINE = /Bench toggle: \S+ (on|off)/g;
const ACCESS_LINE = Buffer.from(ACCESS_MSG);
const TIME = Buffer.from('"time":');

/**
 * Reads the access lines (one per call answered) appended to Arrbiter's log. The log is written in
 * batches (64 KiB, some 200 lines, or every 250 ms): a line reaches the file up to a batch after its
 * call. Counting the lines in the file at a phase's edge would put a batch's worth of one phase's
 * calls in the next, at random, about 1 % of a one-second phase's calls (1–2 µs of its figure); each
 * line's own `time` says when its call ended.
 */
export class AccessLines {
  private readonly fd: number;
  private offset: number;

  constructor(file: string) {
    this.fd = openSync(file, 'r');
    this.offset = fstatSync(this.fd).size;
  }

  /** The access lines written since the last call, up to the last whole line. */
  take(): number {
    return this.takeTimes().length;
  }

  /** When (epoch ms: the line's `time`) each call of the access lines written since the last call ended. */
  takeTimes(): number[] {
    const times: number[] = [];
    const size = fstatSync(this.fd).size;
    if (size <= this.offset) return times;
    const buffer = Buffer.allocUnsafe(size - this.offset);
    const read = readSync(this.fd, buffer, 0, buffer.length, this.offset);
    const whole = buffer.lastIndexOf(0x0a, read - 1) + 1;
    for (let at = buffer.indexOf(ACCESS_LINE); at !== -1 && at < whole; at = buffer.indexOf(ACCESS_LINE, at + 1)) {
      // pino's line: `{"level":30,"time":1764…,` — the time is near the line's start.
      let digit = buffer.indexOf(TIME, buffer.lastIndexOf(0x0a, at) + 1) + TIME.length;
      let time = 0;
      for (let byte = buffer[digit]; byte >= 0x30 && byte <= 0x39; byte = buffer[++digit])
        time = time * 10 + byte - 0x30;
      times.push(time);
    }
    this.offset += whole;
    return times;
  }

  close(): void {
    closeSync(this.fd);
  }
}

/**
 * The calls of consecutive phases, by when each ended: the phase `i` runs from `edges[i]` to
 * `edges[i + 1]` (epoch ms, as the bench read them). Fed the access lines as they reach the file, and
 * counted once the lines of the last edge are in.
 */
class PhaseCalls {
  private readonly times: number[] = [];
  readonly edges: number[] = [];

  constructor(private readonly lines: AccessLines) {
    lines.take();
  }

  /** Reads what reached the file (at an edge: cheap, the lines of one batch or so). */
  read(): void {
    for (const time of this.lines.takeTimes()) this.times.push(time);
  }

  /** Waits (up to 3 s) for a line that ended after the last edge (the ones before it are written first), then counts. */
  async counts(): Promise<number[]> {
    const last = this.edges[this.edges.length - 1];
    for (const end = Date.now() + 3_000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
      this.read();
      if (this.times.length > 0 && this.times[this.times.length - 1] >= last) break;
    }
    const counts = new Array<number>(Math.max(0, this.edges.length - 1)).fill(0);
    let phase = 0;
    for (const time of this.times) {
      if (time < this.edges[0] || time >= last) continue;
      while (time >= this.edges[phase + 1]) phase += 1;
      counts[phase] += 1;
    }
    return counts;
  }
}

/**
 * The switches a process with `BENCH_TOGGLE` logged ("Bench toggle: metrics off"), from now on. Two
 * signals sent closer together than the process takes them are delivered as one: the bench counts the
 * switches it asked for against the ones the process made, and the state it left.
 */
export class Switches {
  private readonly offset: number;

  constructor(private readonly file: string) {
    this.offset = statSync(file).size;
  }

  /** Waits (up to 5 s: the log is written in batches) for `count` switches since this began, the last to `on`. */
  async made(count: number, on: boolean): Promise<void> {
    let states: string[] = [];
    for (const end = Date.now() + 5_000; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) {
      const text = readFileSync(this.file).subarray(this.offset).toString('utf8');
      states = [...text.matchAll(TOGGLE_LINE)].map((match) => match[1]);
      if (states.length >= count) break;
    }
    if (states.length !== count || (count > 0 && states[count - 1] !== (on ? 'on' : 'off')))
      throw new Error(
        `The process made ${states.length} switches (${states.join(', ')}) where the bench sent ${count} signals, leaving it ${on ? 'on' : 'off'}`,
      );
  }
}

/**
 * The calls a process with `BENCH_TOGGLE` answered with its feature on and off, by its own log: the
 * access lines before its first switch and after each "on", and those after each "off". The switch
 * line and the access lines go to one output in the order they were made, and the feature's work for
 * a call is done where its access line is, so this is the state each call met, with no edge to guess:
 * the bench's reads at the edges lag the process by up to a batch of the log (64 KiB, some 200 lines).
 */
export function callsByState(file: string): { on: number; off: number; switches: number } {
  const counts = { on: 0, off: 0, switches: 0 };
  let on = true;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.includes(ACCESS_MSG)) {
      if (on) counts.on += 1;
      else counts.off += 1;
      continue;
    }
    for (const [, state] of line.matchAll(TOGGLE_LINE)) {
      on = state === 'on';
      counts.switches += 1;
    }
  }
  return counts;
}

/** Whether the phase starting at `ms` (a multiple of the phase length) has the feature on. */
export function phaseOn(ms: number, seconds: number): boolean {
  return Math.round(ms / 1000 / seconds) % 2 === 0;
}

const sleepUntil = (ms: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, ms - Date.now())));

/**
 * Reads `pid` at the edges of `count` phases of `seconds` each, from the next edge on. `toggle`: the
 * feature is switched by a signal (`BENCH_TOGGLE`), sent at each edge where the phase starting differs
 * from the feature's state; it is on when this starts. Otherwise the load itself switches (or, for
 * the control, nothing does and the phases are only labelled).
 */
export async function measurePhases(options: {
  pid: number;
  logFile: string;
  count: number;
  seconds: number;
  toggle?: NodeJS.Signals;
}): Promise<Phase[]> {
  const { pid, count, seconds, toggle } = options;
  const length = seconds * 1000;
  const lines = new AccessLines(options.logFile);
  const read: Omit<Phase, 'calls'>[] = [];
  const switches = toggle === undefined ? undefined : new Switches(options.logFile);
  let featureOn = true;
  let sent = 0;
  try {
    let edge = Math.ceil(Date.now() / length) * length;
    await sleepUntil(edge);
    const settle = (on: boolean) => {
      if (toggle !== undefined && on !== featureOn) {
        process.kill(pid, toggle);
        featureOn = on;
        sent += 1;
      }
    };
    settle(phaseOn(edge, seconds));
    let cpu = threadsCpuNs(pid);
    let at = Date.now();
    const calls = new PhaseCalls(lines);
    calls.edges.push(at);
    for (let phase = 0; phase < count; phase += 1) {
      const on = phaseOn(edge, seconds);
      edge += length;
      await sleepUntil(edge);
      const nowCpu = threadsCpuNs(pid);
      const now = Date.now();
      calls.edges.push(now);
      // Not after the last phase: that switch and the one back to on, sent together, would be taken as one.
      if (phase < count - 1) settle(phaseOn(edge, seconds));
      calls.read();
      read.push({ on, cpuNs: nowCpu - cpu, ms: now - at });
      cpu = nowCpu;
      at = now;
    }
    const counted = await calls.counts();
    // Leave the feature as it was found: on.
    settle(true);
    await switches?.made(sent, true);
    return read.map((phase, i) => ({ ...phase, calls: counted[i] }));
  } finally {
    lines.close();
  }
}

/** One of two processes measured in turn (`measureAlternation`): its pid, its log and the wrk that drives it. */
export interface Alternated {
  pid: number;
  logFile: string;
  wrkPid: number;
}

/**
 * Two processes measured in turn within one run, for what cannot be switched inside one process (the
 * shape against the reference: two programs). Each has a wrk of its own running throughout; at every
 * edge of the wall clock the bench pauses one wrk (`SIGSTOP`) and resumes the other (`SIGCONT`), so
 * that `on` drives one second and `off` the next, phase after phase. Read this way, a slow spell of the
 * shared machine falls on both within a second or two and cancels out of their difference (two
 * processes of one build read −2.6 µs apart over 3 fresh pairs, 2026-11-29, where whole cells of 5 s in
 * turn read −122…+63).
 *
 * A phase's figure is the driven process's CPU and calls over its phase and the next one: when its wrk
 * pauses, the calls in flight are answered after the edge, and whatever the process does while not
 * driven (timers, collection of the garbage its calls left) is part of what its calls cost.
 */
export async function measureAlternation(options: {
  on: Alternated;
  off: Alternated;
  count: number;
  seconds: number;
}): Promise<Phase[]> {
  const { count, seconds } = options;
  const length = seconds * 1000;
  const sides = [options.off, options.on];
  const lines = sides.map((side) => new AccessLines(side.logFile));
  const calls = lines.map((side) => new PhaseCalls(side));
  const read: { on: boolean; cpuNs: number[]; ms: number }[] = [];
  let counted: number[][];
  try {
    try {
      let edge = Math.ceil(Date.now() / length) * length;
      await sleepUntil(edge);
      const drive = (on: boolean) => {
        process.kill(sides[on ? 1 : 0].wrkPid, 'SIGCONT');
        process.kill(sides[on ? 0 : 1].wrkPid, 'SIGSTOP');
      };
      drive(phaseOn(edge, seconds));
      let cpu = sides.map((side) => threadsCpuNs(side.pid));
      let at = Date.now();
      for (const side of calls) side.edges.push(at);
      // One phase more than asked: the last one's calls in flight are answered in it.
      for (let phase = 0; phase <= count; phase += 1) {
        const on = phaseOn(edge, seconds);
        edge += length;
        await sleepUntil(edge);
        const nowCpu = sides.map((side) => threadsCpuNs(side.pid));
        const now = Date.now();
        drive(phaseOn(edge, seconds));
        for (const side of calls) {
          side.edges.push(now);
          side.read();
        }
        read.push({ on, cpuNs: nowCpu.map((ns, i) => ns - cpu[i]), ms: now - at });
        cpu = nowCpu;
        at = now;
      }
    } finally {
      // Both driven again, as they were found; a wrk that has ended already (ESRCH) must not hide the error that ended the phases.
      for (const side of sides) {
        try {
          process.kill(side.wrkPid, 'SIGCONT');
        } catch {
          // gone
        }
      }
    }
    // Both driven again: the lines of the last edge come in.
    counted = await Promise.all(calls.map((side) => side.counts()));
  } finally {
    for (const counter of lines) counter.close();
  }
  return read.slice(0, count).map((phase, i) => {
    const side = phase.on ? 1 : 0;
    return {
      on: phase.on,
      cpuNs: phase.cpuNs[side] + read[i + 1].cpuNs[side],
      calls: counted[side][i] + counted[side][i + 1],
      ms: phase.ms,
    };
  });
}

/** CPU µs per call in a phase. */
export const phaseMicros = (phase: Phase) => phase.cpuNs / 1000 / Math.max(1, phase.calls);

/**
 * What the feature adds to a call, one estimate per phase that has a phase on each side: the phase's
 * CPU µs per call less the mean of its two neighbours' (which had the feature the other way), signed so
 * that on − off is positive. Taking both neighbours cancels a drift of the machine's speed that is
 * steady across the three phases. Phases the bench read more than 5 % late or early are left out.
 */
export function phaseEffects(phases: Phase[]): number[] {
  const lengths = phases.map((phase) => phase.ms).sort((a, b) => a - b);
  const typical = lengths[Math.floor(lengths.length / 2)];
  // A phase the bench read late (its event loop held up) holds calls of the next one's state.
  const read = (phase: Phase) => Math.abs(phase.ms - typical) <= typical * 0.05;
  const effects: number[] = [];
  for (let i = 1; i + 1 < phases.length; i += 1) {
    const [before, phase, after] = [phases[i - 1], phases[i], phases[i + 1]];
    if (!read(before) || !read(phase) || !read(after)) continue;
    const difference = phaseMicros(phase) - (phaseMicros(before) + phaseMicros(after)) / 2;
    effects.push(phase.on ? difference : -difference);
  }
  return effects;
}

/**
 * When a process's periodic work runs: watches `pid` for `windowMs` in bins of `binMs` and gives the
 * wall-clock time (epoch ms) of the bin where its CPU peaked. For a timer of a known period whose
 * work stands out from an idle process's (usage counting's write, some ms of CPU).
 */
export async function busiestMoment(pid: number, windowMs: number, binMs: number): Promise<number> {
  let best = { at: Date.now(), cpuNs: -1 };
  let cpu = threadsCpuNs(pid);
  let at = Date.now();
  for (const end = at + windowMs; at < end; ) {
    await new Promise((resolve) => setTimeout(resolve, binMs));
    const [nowCpu, now] = [threadsCpuNs(pid), Date.now()];
    if (nowCpu - cpu > best.cpuNs) best = { at, cpuNs: nowCpu - cpu };
    [cpu, at] = [nowCpu, now];
  }
  return best.at;
}
