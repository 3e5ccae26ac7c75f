/**
 * `npm run bench:ab -- "<node flags A>" "<node flags B>" [rounds] [seconds]`: two Arrbiter processes
 * (production build, embedded database, the bench's seed) with different Node.js flags, driven at the
 * same time by two wrk processes (32 connections each), so that a busy machine slows both alike; prints
 * each one's CPU µs per allowed request, req/s, p99 and resident memory per round. For comparing V8 flags or two builds
 * (`BENCH_SERVER_MAIN_B=path/to/main.js`) where a shared machine makes sequential runs unreliable.
 * `BENCH_AB_ENV_A` / `BENCH_AB_ENV_B` add environment variables to one side (`"LOG_LEVEL=warn
 * USAGE_COUNTING=false"`), and `BENCH_AB_SCRUB_B=false` seeds B's proxies without scrubbing: what one
 * feature costs, both sides under the same load. `BENCH_AB_APPS_A` / `BENCH_AB_APPS_B` seed a side with
 * another number of apps than 1,000 (one proxy each): what the number of proxies costs a call.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@arrbiter/tools/fake-servarr';
import { Child, killChildren, startArrbiter, startScript } from './processes';
import { seed } from './seed';
import { cleanupWrk, wrk } from './wrk';

const [flagsA = '', flagsB = '', roundsArg = '3', secondsArg = '8'] = process.argv.slice(2);
const SECRET_KEY = randomBytes(32).toString('hex');

/** `"A=1 B=2"` → `{A: '1', B: '2'}`. */
function envOf(variable: string): NodeJS.ProcessEnv {
  const pairs = (process.env[variable] ?? '').split(' ').filter(Boolean);
  return Object.fromEntries(pairs.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
}

/** How many apps (one proxy each) a side is seeded with: 1,000 unless the variable says otherwise. */
function appsOf(variable: string): number {
  const apps = Number(process.env[variable] ?? 1000);
  if (!Number.isInteger(apps) || apps < 1) throw new Error(`${variable} must be a positive integer`);
  return apps;
}

async function target(
  name: string,
  flags: string,
  upstream: Child,
  upstreamKey: string,
  side: { main?: string; env: NodeJS.ProcessEnv; scrub: boolean; apps: number },
) {
  const dataDir = mkdtempSync(join(tmpdir(), 'arrbiter-ab-'));
  const env: NodeJS.ProcessEnv = {
    DATA_DIR: dataDir,
    SECRET_KEY,
    OPENAPI_SOURCES: 'none',
    TEMPLATE_REPOSITORY: 'none',
    ADMIN_USERNAME: 'bench',
    ADMIN_PASSWORD: 'benchmark passphrase',
    LOG_LEVEL: 'info',
    ...side.env,
  };
  const seeded = await seed(env, upstream.url, upstreamKey, side.apps, side.scrub);
  const { child } = await startArrbiter(name, env, join(dataDir, 'arrbiter.log'), {
    main: side.main,
    nodeFlags: flags.split(' ').filter(Boolean),
  });
  return {
    name,
    child,
    apps: seeded.apps,
    cleanup: async () => (await child.stop(), rmSync(dataDir, { recursive: true, force: true })),
  };
}

async function main(): Promise<void> {
  const upstreamKey = randomBytes(16).toString('hex');
  const port = await freePort();
  const upstream = await startScript(
    'upstream',
    'upstream.ts',
    [String(port), upstreamKey],
    `http://127.0.0.1:${port}/ping`,
  );
  const label = (side: string, flags: string) =>
    [side, flags || '(none)', process.env[`BENCH_AB_ENV_${side}`] ?? ''].join(' ').trim();
  const a = await target(label('A', flagsA), flagsA, upstream, upstreamKey, {
    env: envOf('BENCH_AB_ENV_A'),
    scrub: true,
    apps: appsOf('BENCH_AB_APPS_A'),
  });
  const b = await target(label('B', flagsB), flagsB, upstream, upstreamKey, {
    main: process.env['BENCH_SERVER_MAIN_B'],
    env: envOf('BENCH_AB_ENV_B'),
    scrub: process.env['BENCH_AB_SCRUB_B'] !== 'false',
    apps: appsOf('BENCH_AB_APPS_B'),
  });
  try {
    await Promise.all([a, b].map((t) => wrk(t.child.url, t.apps, 'mixed', 32, 3)));
    for (let round = 1; round <= Number(roundsArg); round += 1) {
      const before = [a, b].map((t) => t.child.cpuMs());
      const results = await Promise.all([a, b].map((t) => wrk(t.child.url, t.apps, 'allowed', 32, Number(secondsArg))));
      const line = [a, b].map((t, i) => {
        const cpu = ((t.child.cpuMs() - before[i]) * 1000) / results[i].total;
        const rss = Math.round(t.child.rss() / 1024 / 1024);
        return `${t.name}: ${Math.round(results[i].requestsPerSecond)} req/s, ${cpu.toFixed(0)} µs CPU/req, p99 ${results[i].p99.toFixed(1)} ms, ${rss} MB resident`;
      });
      console.log(`round ${round}: ${line.join(' | ')}`);
    }
  } finally {
    await a.cleanup();
    await b.cleanup();
    await upstream.stop();
    cleanupWrk();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  killChildren();
  process.exit(1);
});
