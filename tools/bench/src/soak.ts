/**
 * The soak scenario (`npm run bench -- --only soak [--soak-minutes N]`, default 30): one
 * Arrbiter (production build, embedded database) under steady mixed traffic for N minutes, with an admin
 * change every 5 s and a template sync every minute, sampled every 10 s. Not a CI test: it reports, and
 * states a verdict on whether anything grows without bound (the slope over the last half).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import type { TemplateSyncReport } from '@arrbiter/contracts';
import type { Child } from './processes';
import { ROOT, startArrbiter } from './processes';
import { seed, SHARED } from './seed';

export interface SoakOptions {
  minutes: number;
  upstream: Child;
  upstreamKey: string;
  secretKey: string;
  admin: { ADMIN_USERNAME: string; ADMIN_PASSWORD: string; LOG_LEVEL: string };
  log: (message: string) => void;
}

/** One sample, every 10 s. */
export interface SoakSample {
  /** Seconds since the start of the load. */
  at: number;
  rssMb: number;
  /** Open file descriptors of the server process (`/proc/<pid>/fd`): sockets, files, pipes. */
  fds: number;
  /** p99 of `/health` round trips over the last 10 s (a probe every 100 ms), in ms. */
  healthP99Ms: number;
  /** Connections of the server to its database (`pg_stat_activity`, `application_name = 'arrbiter'`). */
  dbConnections: number;
  /** Proxied calls answered in the last 10 s, by class. */
  calls: { allowed: number; denied: number; streamed: number; failed: number };
}

export interface SoakResult {
  minutes: number;
  samples: SoakSample[];
  adminChanges: { ok: number; failed: number };
  syncs: { ok: number; failed: number; revisions: number };
  lines: string[];
  svg: string;
}

/** Calls per second: allowed reads, denied calls, and 1 MB streamed downloads. */
const RATE = { allowed: 60, denied: 20, streamed: 2 };
const STREAM_BYTES = 1024 * 1024;
const SAMPLE_MS = 10_000;
const ADMIN_EVERY_MS = 5_000;
const SYNC_EVERY_MS = 60_000;
const SOAK_APPS = 100;

function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Least-squares slope of y over x. */
export function slope(points: [number, number][]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const num = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const den = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

/** One GET or DELETE through the proxy; resolves with the status (0: no answer), the body drained. */
function proxied(agent: Agent, base: URL, slug: string, key: string, method: string, path: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      {
        host: base.hostname,
        port: base.port,
        method,
        path: `/proxy/${slug}${path}`,
        headers: { 'x-api-key': key },
        agent,
      },
      (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
        res.once('error', () => resolve(0));
      },
    );
    req.once('error', () => resolve(0));
    req.end();
  });
}

/** The embedded database's connection: its port from `postmaster.pid`, its generated password. */
function embeddedConnection(dataDir: string): { host: string; port: number; user: string; password: string } {
  const port = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[3]);
  const password = readFileSync(join(dataDir, 'pg.password'), 'utf8').trim();
  return { host: '127.0.0.1', port, user: 'postgres', password };
}

export async function soakScenario(options: SoakOptions): Promise<SoakResult> {
  const { minutes, upstream, upstreamKey, log } = options;
  const dataDir = mkdtempSync(join(tmpdir(), 'arrbiter-soak-'));
  // The template repository the syncs read: a copy of the community templates in which one Radarr
  // template that seeded apps use is edited before every sync (a grant added, then removed again), so
  // that each sync changes it and the proxies of those apps get `template-sync` revisions.
  const repo = join(dataDir, 'template-repo');
  const source = join(SHARED, 'template-repo');
  if (existsSync(source)) cpSync(source, repo, { recursive: true });
  else mkdirSync(join(repo, 'radarr'), { recursive: true });
  const reader = readdirSync(join(repo, 'radarr')).find((file) => {
    const grants = JSON.parse(readFileSync(join(repo, 'radarr', file), 'utf8')) as Record<string, string[]>;
    return grants['/api/v3/movie']?.includes('get') && grants['/api/v3/movie/{id}']?.includes('get');
  });
  const edited = join(repo, 'radarr', reader ?? 'soak.json');
  const original: Record<string, string[]> = reader
    ? (JSON.parse(readFileSync(edited, 'utf8')) as Record<string, string[]>)
    : { '/api/v3/movie': ['get'], '/api/v3/movie/{id}': ['get'] };
  writeFileSync(edited, JSON.stringify(original));
  const env: NodeJS.ProcessEnv = {
    DATA_DIR: dataDir,
    SECRET_KEY: options.secretKey,
    OPENAPI_SOURCES: 'none',
    TEMPLATE_REPOSITORY: repo,
    ...options.admin,
  };
  log(`Soak: seeding ${SOAK_APPS} apps…`);
  const seeded = await seed(env, upstream.url, upstreamKey, SOAK_APPS);
  const { child } = await startArrbiter('arrbiter (soak)', env, join(dataDir, 'arrbiter.log'));
  const base = new URL(child.url);
  const origin = child.url;
  let cookie = '';
  const adminCall = async (method: string, path: string, body?: unknown) => {
    if (!cookie) {
      const signIn = await fetch(`${origin}/api/auth/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin },
        body: JSON.stringify({ username: options.admin.ADMIN_USERNAME, password: options.admin.ADMIN_PASSWORD }),
      });
      cookie = (signIn.headers.getSetCookie()[0] ?? '').split(';')[0];
    }
    const response = await fetch(`${origin}${path}`, {
      method,
      headers: { cookie, origin, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 200)}`);
    return text ? (JSON.parse(text) as unknown) : undefined;
  };

  // A proxy of the soak's own, granted the streaming endpoint, whose overrides the admin changes toggle.
  const services = (await adminCall('GET', '/api/admin/v1/services')) as
    | { items?: { id: string }[] }
    | { id: string }[];
  const serviceId = (Array.isArray(services) ? services : (services.items ?? []))[0].id;
  const soakApp = (await adminCall('POST', '/api/admin/v1/apps', {
    name: 'Soak',
    slug: 'soak',
    templateId: null,
    active: true,
  })) as { id: string };
  const soakProxy = (await adminCall('POST', `/api/admin/v1/apps/${soakApp.id}/proxies`, { serviceId })) as {
    id: string;
    key: string;
  };
  const baseOverrides = { '/api/v3/test/stream': ['get'], '/api/v3/movie': ['get'] };
  await adminCall('PUT', `/api/admin/v1/proxies/${soakProxy.id}/config`, { overrides: baseOverrides, active: true });

  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const window = { allowed: 0, denied: 0, streamed: 0, failed: 0 };
  // Counted by class; `failed`: no answer or a 5xx (a 403 or 404 is an answer: a tenth of the seeded
  // proxies carry overrides that deny some reads).
  const counted = (kind: 'allowed' | 'denied' | 'streamed') => (status: number) => {
    if (status === 0 || status >= 500) window.failed += 1;
    else window[kind] += 1;
  };
  let n = 0;
  const pick = () => seeded.apps[n++ % seeded.apps.length];
  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, fn: () => void) => timers.push(setInterval(fn, ms));
  // Steady rate: a tick every 100 ms sends a tenth of each class's calls per second.
  let tick = 0;
  every(100, () => {
    tick += 1;
    for (let i = 0; i < RATE.allowed / 10; i += 1) {
      const app = pick();
      void proxied(agent, base, app.slug, app.key, 'GET', i % 2 ? '/api/v3/movie' : `/api/v3/movie/${n}`).then(
        counted('allowed'),
      );
    }
    for (let i = 0; i < RATE.denied / 10; i += 1) {
      const app = pick();
      void proxied(
        agent,
        base,
        app.slug,
        app.key,
        i % 2 ? 'DELETE' : 'GET',
        i % 2 ? '/api/v3/movie/1' : '/api/v3/config/host',
      ).then(counted('denied'));
    }
    if (tick % (10 / RATE.streamed) === 0)
      void proxied(agent, base, 'soak', soakProxy.key, 'GET', `/api/v3/test/stream?bytes=${STREAM_BYTES}`).then(
        counted('streamed'),
      );
  });

  const adminChanges = { ok: 0, failed: 0 };
  let change = 0;
  every(ADMIN_EVERY_MS, () => {
    change += 1;
    // Alternately: a proxy's overrides toggled (a revision each), and an app created and deleted.
    const work =
      change % 2
        ? adminCall('PUT', `/api/admin/v1/proxies/${soakProxy.id}/config`, {
            overrides: change % 4 === 1 ? { ...baseOverrides, '/api/v3/calendar': ['get'] } : baseOverrides,
            active: true,
          })
        : adminCall('POST', '/api/admin/v1/apps', {
            name: `Churn ${change}`,
            slug: `churn-${change}`,
            templateId: null,
            active: true,
          }).then((app) => adminCall('DELETE', `/api/admin/v1/apps/${(app as { id: string }).id}`));
    work.then(
      () => (adminChanges.ok += 1),
      (error: unknown) => {
        adminChanges.failed += 1;
        log(`Soak: admin change failed: ${String(error)}`);
      },
    );
  });

  const syncs = { ok: 0, failed: 0, revisions: 0 };
  let syncNumber = 0;
  every(SYNC_EVERY_MS, () => {
    syncNumber += 1;
    writeFileSync(edited, JSON.stringify(syncNumber % 2 ? { ...original, '/api/v3/soak/toggle': ['get'] } : original));
    adminCall('POST', '/api/admin/v1/templates/sync').then(
      (report) => {
        syncs.ok += 1;
        syncs.revisions += (report as TemplateSyncReport).proxies.length;
      },
      (error: unknown) => {
        syncs.failed += 1;
        log(`Soak: template sync failed: ${String(error)}`);
      },
    );
  });

  // Event-loop lag probe: a /health round trip every 100 ms (loopback, no database): its p99 per window
  // bounds the server's event-loop delay from above.
  let healthTimes: number[] = [];
  const healthAgent = new Agent({ keepAlive: true, maxSockets: 1 });
  let probing = false;
  every(100, () => {
    // One probe at a time: a slow answer is measured, not queued behind (which would count it twice).
    if (probing) return;
    probing = true;
    const started = performance.now();
    const req = request({ host: base.hostname, port: base.port, path: '/health', agent: healthAgent }, (res) => {
      res.resume();
      res.once('end', () => {
        healthTimes.push(performance.now() - started);
        probing = false;
      });
    });
    req.once('error', () => (probing = false));
    req.end();
  });

  const db = new Client({ ...embeddedConnection(dataDir), database: 'postgres' });
  await db.connect();
  const samples: SoakSample[] = [];
  const startedAt = performance.now();
  const total = Math.round((minutes * 60_000) / SAMPLE_MS);
  log(`Soak: ${minutes} min, ${RATE.allowed + RATE.denied + RATE.streamed} calls/s, sampled every 10 s…`);
  try {
    for (let i = 1; i <= total; i += 1) {
      await new Promise((r) => setTimeout(r, startedAt + i * SAMPLE_MS - performance.now()));
      const { rows } = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'arrbiter'",
      );
      const pid = child.process.pid as number;
      const sample: SoakSample = {
        at: Math.round((performance.now() - startedAt) / 1000),
        rssMb: child.rss() / 1024 / 1024,
        fds: readdirSync(`/proc/${pid}/fd`).length,
        healthP99Ms: percentile(healthTimes, 99),
        dbConnections: rows[0].n,
        calls: { ...window },
      };
      healthTimes = [];
      Object.assign(window, { allowed: 0, denied: 0, streamed: 0, failed: 0 });
      samples.push(sample);
      log(
        `Soak ${sample.at}s: RSS ${sample.rssMb.toFixed(1)} MB, ${sample.fds} fds, /health p99 ${sample.healthP99Ms.toFixed(1)} ms, ${sample.dbConnections} db connections, calls ${JSON.stringify(sample.calls)}`,
      );
    }
  } finally {
    for (const timer of timers) clearInterval(timer);
    await new Promise((r) => setTimeout(r, 2000));
    agent.destroy();
    healthAgent.destroy();
    await db.end();
    await child.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const result = { minutes, samples, adminChanges, syncs };
  return { ...result, lines: report(result), svg: chart(samples) };
}

/** The verdict on one series: its growth over the last half, extrapolated to an hour. */
function growth(samples: SoakSample[], value: (s: SoakSample) => number): { perHour: number; lastHalf: number } {
  const half = samples.slice(Math.floor(samples.length / 2));
  const perSecond = slope(half.map((s) => [s.at, value(s)]));
  const span = half.length > 1 ? half[half.length - 1].at - half[0].at : 0;
  return { perHour: perSecond * 3600, lastHalf: perSecond * span };
}

function report({ minutes, samples, adminChanges, syncs }: Omit<SoakResult, 'lines' | 'svg'>): string[] {
  const rows = samples.filter((_, i) => i % 6 === 5 || i === samples.length - 1);
  const calls = samples.reduce(
    (sum, s) => ({
      allowed: sum.allowed + s.calls.allowed,
      denied: sum.denied + s.calls.denied,
      streamed: sum.streamed + s.calls.streamed,
      failed: sum.failed + s.calls.failed,
    }),
    { allowed: 0, denied: 0, streamed: 0, failed: 0 },
  );
  const rss = growth(samples, (s) => s.rssMb);
  const fds = growth(samples, (s) => s.fds);
  const dbc = growth(samples, (s) => s.dbConnections);
  const lag = growth(samples, (s) => s.healthP99Ms);
  // Bounded: over the last half, RSS grew by less than 10 MB (a line fitted to 1 sample per 10 s),
  // descriptors and database connections by less than 5.
  const bounded = rss.lastHalf < 10 && fds.lastHalf < 5 && dbc.lastHalf < 5;
  const maxOf = (f: (s: SoakSample) => number) => Math.max(...samples.map(f));
  return [
    `### Soak: ${minutes} min of mixed traffic, admin changes every 5 s, a template sync every minute`,
    '',
    `Calls: ${calls.allowed} allowed, ${calls.denied} denied, ${calls.streamed} streamed (1 MB each), ${calls.failed} failed (no answer or 5xx). ` +
      `Admin changes: ${adminChanges.ok} ok, ${adminChanges.failed} failed. Template syncs: ${syncs.ok} ok, ${syncs.failed} failed, ` +
      `${syncs.revisions} template-sync revisions.`,
    '',
    '| minute | RSS (MB) | open fds | /health p99 (ms) | DB connections | calls in the last 10 s (allowed / denied / streamed / failed) |',
    '|---:|---:|---:|---:|---:|---|',
    ...rows.map(
      (s) =>
        `| ${(s.at / 60).toFixed(1)} | ${s.rssMb.toFixed(1)} | ${s.fds} | ${s.healthP99Ms.toFixed(1)} | ${s.dbConnections} | ${s.calls.allowed} / ${s.calls.denied} / ${s.calls.streamed} / ${s.calls.failed} |`,
    ),
    '',
    `Peaks: RSS ${maxOf((s) => s.rssMb).toFixed(1)} MB, ${maxOf((s) => s.fds)} fds, /health p99 ${maxOf((s) => s.healthP99Ms).toFixed(1)} ms, ${maxOf((s) => s.dbConnections)} DB connections.`,
    '',
    `Slope over the last half (least squares): RSS ${rss.perHour.toFixed(1)} MB/h (${rss.lastHalf.toFixed(1)} MB over that half), ` +
      `fds ${fds.perHour.toFixed(1)}/h, DB connections ${dbc.perHour.toFixed(2)}/h, /health p99 ${lag.perHour.toFixed(2)} ms/h.`,
    '',
    `**Verdict: ${bounded ? 'nothing grows without bound' : 'GROWTH: something grows over the last half'}** ` +
      '(bounded: over the last half RSS grew < 10 MB, fds and DB connections < 5).',
  ];
}

/** Four small line charts (RSS, fds, /health p99, DB connections) over minutes, as one SVG. */
export function chart(samples: SoakSample[]): string {
  const series: [string, (s: SoakSample) => number, string][] = [
    ['RSS (MB)', (s) => s.rssMb, '#1f77b4'],
    ['open file descriptors', (s) => s.fds, '#2ca02c'],
    ['/health p99 (ms)', (s) => s.healthP99Ms, '#d62728'],
    ['DB connections', (s) => s.dbConnections, '#9467bd'],
  ];
  const W = 720;
  const H = 150;
  const pad = { left: 60, right: 20, top: 24, bottom: 26 };
  const maxAt = Math.max(60, ...samples.map((s) => s.at));
  const parts: string[] = [];
  series.forEach(([title, value, color], index) => {
    const y0 = index * H;
    const values = samples.map(value).filter(Number.isFinite);
    const top = Math.max(1, ...values) * 1.15;
    const x = (at: number) => pad.left + (at / maxAt) * (W - pad.left - pad.right);
    const y = (v: number) => y0 + pad.top + (1 - v / top) * (H - pad.top - pad.bottom);
    const points = samples
      .filter((s) => Number.isFinite(value(s)))
      .map((s) => `${x(s.at).toFixed(1)},${y(value(s)).toFixed(1)}`)
      .join(' ');
    parts.push(
      `<text x="${pad.left}" y="${y0 + 16}" font-size="13" font-weight="bold">${title}</text>`,
      `<line x1="${pad.left}" y1="${y(0)}" x2="${W - pad.right}" y2="${y(0)}" stroke="#999"/>`,
      `<line x1="${pad.left}" y1="${y(top)}" x2="${pad.left}" y2="${y(0)}" stroke="#999"/>`,
      `<text x="${pad.left - 6}" y="${y(0) + 4}" font-size="11" text-anchor="end">0</text>`,
      `<text x="${pad.left - 6}" y="${y(top / 1.15) + 4}" font-size="11" text-anchor="end">${(top / 1.15).toFixed(top < 20 ? 1 : 0)}</text>`,
      `<line x1="${pad.left}" y1="${y(top / 1.15)}" x2="${W - pad.right}" y2="${y(top / 1.15)}" stroke="#ddd" stroke-dasharray="3,3"/>`,
      `<text x="${W - pad.right}" y="${y(0) + 16}" font-size="11" text-anchor="end">${(maxAt / 60).toFixed(0)} min</text>`,
      `<polyline fill="none" stroke="${color}" stroke-width="1.5" points="${points}"/>`,
    );
  });
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H * series.length}" font-family="sans-serif">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    ...parts,
    '</svg>',
    '',
  ].join('\n');
}

/** Where the plot goes: committed with docs/performance-log.md. */
export const SOAK_SVG = join(ROOT, 'docs', 'soak.svg');
