import { Client } from 'pg';
import type { Child } from './processes';
import type { SeededApp } from './seed';

/** How one replica's admin API is called (a signed-in session). */
export type AdminCall = (method: string, path: string, body?: unknown) => Promise<Response>;

export interface Replica {
  child: Child;
  admin: AdminCall;
}

export interface Convergence {
  /** Milliseconds from the admin call on one replica to the first request the other answers accordingly. */
  allowlist: number[];
  rotation: number[];
  deactivation: number[];
  /** After the listeners' backends were terminated and a change made during the outage. */
  afterOutage: number[];
}

async function status(replica: Replica, app: SeededApp, key = app.key): Promise<number> {
  const response = await fetch(`${replica.child.url}/proxy/${app.slug}/api/v3/movie`, {
    headers: { 'x-api-key': key },
  });
  await response.body?.cancel();
  return response.status;
}

/** Polls `replica` as fast as one request at a time allows until it answers `expected`; ms since `started`. */
async function until(
  replica: Replica,
  app: SeededApp,
  key: string,
  expected: number,
  started: number,
): Promise<number> {
  const deadline = started + 30_000;
  while ((await status(replica, app, key)) !== expected) {
    if (performance.now() > deadline) throw new Error(`${replica.child.name} did not answer ${expected} within 30 s`);
  }
  return performance.now() - started;
}

async function proxyOf(admin: AdminCall, app: SeededApp): Promise<{ id: string; overrides: Record<string, string[]> }> {
  const page = (await (
    await admin('GET', `/api/admin/v1/apps?q=${encodeURIComponent(app.slug)}&limit=200`)
  ).json()) as {
    items: { id: string; slug: string }[];
  };
  const appId = page.items.find((a) => a.slug === app.slug)?.id;
  if (!appId) throw new Error(`The apps list has no ${app.slug}`);
  const [proxy] = (await (await admin('GET', `/api/admin/v1/apps/${appId}/proxies`)).json()) as { id: string }[];
  const allowlist = (await (await admin('GET', `/api/admin/v1/proxies/${proxy.id}/allowlist`)).json()) as {
    overrides: Record<string, string[]>;
  };
  return { id: proxy.id, overrides: allowlist.overrides };
}

async function ok(response: Promise<Response>, what: string): Promise<Response> {
  const answer = await response;
  if (!answer.ok) throw new Error(`${what}: ${answer.status} ${await answer.text()}`);
  return answer;
}

/**
 * Replicas: how long a change made through one replica takes to be enforced by the other, each
 * measured from the admin call to the first request the other replica answers accordingly (requests
 * sent one after another): an allowlist change (A → B), a key rotation (A → B), a deactivation
 * (B → A), and a change made while both listeners' backends were terminated
 * (`pg_terminate_backend` on their `application_name`), which arrives by the full reload after the
 * reconnect (back-off 0.5 s first).
 */
export async function replicasScenario(
  a: Replica,
  b: Replica,
  apps: SeededApp[],
  databaseUrl: string,
  rounds: number,
): Promise<Convergence> {
  const result: Convergence = { allowlist: [], rotation: [], deactivation: [], afterOutage: [] };
  for (let i = 0; i < rounds; i += 1) {
    const app = { ...apps[(i * 7 + 3) % apps.length] };
    const proxy = await proxyOf(a.admin, app);
    const save = (replica: Replica, deny: boolean, active = true) =>
      replica.admin('PUT', `/api/admin/v1/proxies/${proxy.id}/config`, {
        overrides: { ...proxy.overrides, '/api/v3/movie': deny ? [] : ['get'] },
        active,
      });
    // Allowlist: denied on A, enforced by B; then granted again.
    let started = performance.now();
    let saving = ok(save(a, true), 'deny');
    result.allowlist.push(await until(b, app, app.key, 403, started));
    await saving;
    started = performance.now();
    saving = ok(save(a, false), 'grant');
    result.allowlist.push(await until(b, app, app.key, 200, started));
    await saving;
    // Rotation on A: B refuses the old key.
    started = performance.now();
    const rotated = await ok(a.admin('POST', `/api/admin/v1/proxies/${proxy.id}/rotate-key`, {}), 'rotate');
    result.rotation.push(await until(b, app, app.key, 401, started));
    app.key = ((await rotated.json()) as { key: string }).key;
    // Deactivation on B: A refuses.
    started = performance.now();
    saving = ok(b.admin('PATCH', `/api/admin/v1/proxies/${proxy.id}`, { active: false }), 'deactivate');
    result.deactivation.push(await until(a, app, app.key, 401, started));
    await saving;
    await ok(b.admin('PATCH', `/api/admin/v1/proxies/${proxy.id}`, { active: true }), 'reactivate');
    await until(a, app, app.key, 200, performance.now());
    // Outage: both listeners cut off, a change made on A meanwhile, B converges after reconnecting.
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name LIKE 'arrbiter-listener-%'",
      );
    } finally {
      await client.end();
    }
    started = performance.now();
    saving = ok(save(a, true), 'deny during the outage');
    result.afterOutage.push(await until(b, app, app.key, 403, started));
    await saving;
    await ok(save(a, false), 'grant after the outage');
    await until(b, app, app.key, 200, performance.now());
    // A's listener reconnects too: let it, before the next round measures A.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    apps[(i * 7 + 3) % apps.length] = app;
  }
  return result;
}
