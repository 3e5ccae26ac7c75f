import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ConnectClientResponse, KnownClientDto, NamedCall, ServiceDto } from '@arrbiter/contracts';
import { createTestDatabase, seedService, TestDatabase } from '@arrbiter/server/testing';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { AdminHttpClient } from '../support/admin-client';
import { ServerProcess, startServer } from '../support/server-process';

const ADMIN = { ADMIN_USERNAME: 'admin', ADMIN_PASSWORD: 'connect every client suite passphrase' };
/** The real OpenAPI descriptions, beside the repository (`../shared`), as in CI. */
const OPENAPI = resolve(__dirname, '../../../../../shared/fixtures/openapi');
/**
 * The catalogue's data files themselves (an e2e suite imports no server lib): what each client sends,
 * template paths with their samples.
 */
const DATA = resolve(__dirname, '../../../../libs/server/known-clients/data');
/** The API version a fake upstream of each type serves (its current one). */
const CURRENT: Record<string, string> = {
  radarr: 'v3',
  sonarr: 'v3',
  whisparr: 'v3',
  lidarr: 'v1',
  readarr: 'v1',
  prowlarr: 'v1',
};

interface CatalogueCall {
  method: string;
  path: string;
  query?: string;
  pathSamples?: Record<string, string>;
}
interface CatalogueClient {
  id: string;
  name: string;
  services: Record<string, CatalogueCall[]>;
}

const clients: CatalogueClient[] = readdirSync(DATA)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => JSON.parse(readFileSync(join(DATA, file), 'utf8')) as CatalogueClient);

/**
 * The request a catalogue call sends: a template path made concrete with its samples (as
 * `concretePath` in `libs/server/known-clients/src/lib/call-paths.ts` does; a missing sample fails), and
 * its query.
 */
function sent(call: CatalogueCall): string {
  const path = call.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const sample = call.pathSamples?.[name];
    if (sample === undefined) throw new Error(`${call.path}: no sample for {${name}}`);
    return sample;
  });
  return call.query ? `${path}?${call.query}` : path;
}

/**
 * `POST /api/admin/v1/known-clients/:id/connect` for every client of the catalogue, against a fake
 * upstream of each service type it calls, on the built server: connected with every sensitive call
 * included, each of its catalogue calls (SignalR and other calls outside the API too) forwards;
 * connected with none, exactly the sensitive ones are refused (403). A call no client of the pair makes
 * is refused either way.
 */
describe('connect every catalogue client over HTTP and replay its calls', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let admin: AdminHttpClient;
  const upstreams: FakeServarr[] = [];
  const services = new Map<string, ServiceDto>();
  /** Per client, the calls replayed and how many of them are sensitive. */
  const replayed = new Map<string, { calls: number; sensitive: number }>();

  beforeAll(async () => {
    database = await createTestDatabase();
    server = await startServer({ ...database.env, ...ADMIN, OPENAPI_SOURCES: 'none' });
    admin = await AdminHttpClient.signIn(server, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD);
    // The real descriptions, before the services are registered (so their own are not fetched).
    for (const file of readdirSync(OPENAPI).filter((f) => f.endsWith('.json'))) {
      const [, type, version] = /^([a-z]+)-(v\d+)\.json$/.exec(file) ?? [];
      await admin.request(
        'PUT',
        `/api/admin/v1/openapi/${type}/${version}`,
        JSON.parse(readFileSync(join(OPENAPI, file), 'utf8')),
      );
    }
    const types = [...new Set(clients.flatMap((client) => Object.keys(client.services)))].sort();
    for (const type of types) {
      const current = CURRENT[type];
      if (!current) throw new Error(`no API version known for a fake ${type}`);
      const upstream = await FakeServarr.start({ type, current });
      upstreams.push(upstream);
      services.set(type, await seedService(admin, upstream));
    }
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    await Promise.all(upstreams.map((upstream) => upstream.stop()));
    await database?.drop();
  });

  it('covers the whole catalogue', async () => {
    const list = await admin.request<{ id: string }[]>('GET', '/api/admin/v1/known-clients');
    expect(list.map((c) => c.id).sort()).toEqual(clients.map((c) => c.id));
  });

  it.each(clients.map((client) => [client.id, client] as const))(
    '%s: every call forwards with the sensitive ones included, exactly those are refused without',
    async (_id, client) => {
      const known = await admin.request<KnownClientDto>('GET', `/api/admin/v1/known-clients/${client.id}`);
      const types = Object.keys(client.services).filter((type) => client.services[type].length > 0);
      const serviceIds = types.map((type) => (services.get(type) as ServiceDto).id);
      // The server's view of each call (its route and risk), in the data's order.
      const calls = types.flatMap((type) =>
        client.services[type].map((call, i) => {
          const dto = known.services[type]?.[i];
          expect({ type, i, method: dto?.method, path: dto?.path }).toEqual({
            type,
            i,
            method: call.method,
            path: call.path,
          });
          return { type, call, route: dto?.route ?? call.path, sensitive: dto?.risk.sensitive === true };
        }),
      );
      const sensitive: NamedCall[] = calls
        .filter((c) => c.sensitive)
        .map((c) => ({ method: c.call.method, route: c.route, serviceId: (services.get(c.type) as ServiceDto).id }));

      replayed.set(client.id, { calls: calls.length, sensitive: sensitive.length });
      for (const included of [true, false]) {
        const answer = await admin.request<ConnectClientResponse>(
          'POST',
          `/api/admin/v1/known-clients/${client.id}/connect`,
          { serviceIds, ...(included ? { include: { sensitive } } : {}) },
          [201],
        );
        expect(answer.app.knownClientId).toBe(client.id);
        const keyOf = new Map(answer.proxies.map((p) => [p.serviceType, p.key]));
        const send = async (type: string, method: string, path: string) => {
          const response = await fetch(`${server.url}/proxy/${answer.app.slug}${path}`, {
            method: method.toUpperCase(),
            headers: { 'x-api-key': keyOf.get(type) as string },
          });
          await response.arrayBuffer();
          return response.status;
        };
        const wrong: string[] = [];
        for (const { type, call, sensitive: isSensitive } of calls) {
          const expected = included || !isSensitive ? 200 : 403;
          const status = await send(type, call.method, sent(call));
          if (status !== expected)
            wrong.push(`${type} ${call.method.toUpperCase()} ${sent(call)}: ${status}, expected ${expected}`);
        }
        // Calls the client does not make are refused, whatever was included.
        for (const type of types) {
          const v = CURRENT[type];
          for (const path of [`/api/${v}/system/backup/7`, ...(type === 'radarr' ? ['/api/v3/movie/123'] : [])]) {
            if (client.services[type].some((call) => call.method === 'delete' && call.path === path)) continue;
            const status = await send(type, 'delete', path);
            if (status !== 403)
              wrong.push(`${type} DELETE ${path} (not a call of ${client.id}): ${status}, expected 403`);
          }
        }
        expect({ client: client.id, sensitiveIncluded: included, wrong }).toEqual({
          client: client.id,
          sensitiveIncluded: included,
          wrong: [],
        });
      }
    },
    60_000,
  );

  it('replayed every call of the catalogue, sensitive ones among them', () => {
    const total = clients.reduce((n, client) => n + Object.values(client.services).flat().length, 0);
    const counts = [...replayed.values()];
    expect(counts.reduce((n, c) => n + c.calls, 0)).toBe(total);
    // Without sensitive calls, "exactly those are refused" would prove nothing.
    expect(counts.reduce((n, c) => n + c.sensitive, 0)).toBeGreaterThan(20);
    expect(replayed.get('overseerr')?.sensitive).toBeGreaterThan(0);
  });
});
