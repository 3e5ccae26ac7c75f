import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type {
  AllowlistMap,
  AllowlistResponse,
  EndpointsResponse,
  Grant,
  Page,
  RevisionDto,
  ServiceDto,
  TemplateDto,
} from '@arrbiter/contracts';
import { AllowlistDraft, HTTP_METHODS, routeShape } from '@arrbiter/shared/allowlist-rules';
import { parseTemplateFile, TemplatesService } from '@arrbiter/server/templates';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { random } from '../testing/random';
import { AdminClient, found, startTestApp, TestApp } from '../testing/test-app';
import { seedProxy, seedService } from '@arrbiter/server/testing';

/** The fixture template repository (`<serviceType>/<name>.json`, real community templates). */
const FIXTURE = resolve(__dirname, '../../../../libs/server/template-sync/src/testing/template-repo');
/** Change it to explore other random edits; a failure names the seed, the file and the round. */
const SEED = 14;
const ROUNDS = 3;

/** Every template file, parsed by the server's own reader. */
const FILES = readdirSync(FIXTURE)
  .sort()
  .flatMap((type) =>
    readdirSync(join(FIXTURE, type))
      .filter((name) => name.endsWith('.json'))
      .sort()
      .map((name) => {
        const parsed = parseTemplateFile(readFileSync(join(FIXTURE, type, name), 'utf8'));
        if ('reason' in parsed) throw new Error(`${type}/${name}: ${parsed.reason}`);
        return { file: `${type}/${name}`, name: `${type} ${name.slice(0, -'.json'.length)}`, block: parsed.block };
      }),
  );
const EVERY_PATH = [...new Set(FILES.flatMap((f) => Object.keys(f.block)))].sort();

function seedOf(text: string): number {
  let hash = SEED;
  for (const c of text) hash = Math.imul(hash ^ c.charCodeAt(0), 0x01000193);
  return hash >>> 0;
}

/** The same route written differently, as an API client, an import or an admin may: case, parameter names. */
function respell(path: string, rng: () => number): string {
  return path
    .split('/')
    .map((segment) => {
      if (/^\{[^{}]+\}$/.test(segment)) return rng() < 0.5 ? `{p${Math.floor(rng() * 10)}}` : segment;
      return rng() < 0.4 ? segment.replace(/[a-z]/g, (c) => (rng() < 0.5 ? c.toUpperCase() : c)) : segment;
    })
    .join('/');
}

/**
 * Overrides as an API client, an import or a configuration file may store them: some of the
 * template's routes (half of them spelled differently), some other routes, any methods or none (a deny).
 */
function storedOverrides(template: AllowlistMap, rng: () => number): AllowlistMap {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rng() * list.length)];
  const overrides: AllowlistMap = {};
  const shapes = new Set<string>();
  const candidates = [
    ...Object.keys(template).filter(() => rng() < 0.4),
    ...Array.from({ length: 1 + Math.floor(rng() * 3) }, () => pick(EVERY_PATH)),
  ];
  for (const chosen of candidates) {
    const path = rng() < 0.5 ? respell(chosen, rng) : chosen;
    // One override per route: the server refuses two spellings of one route in a map.
    if (shapes.has(routeShape(path))) continue;
    shapes.add(routeShape(path));
    overrides[path] = HTTP_METHODS.filter(() => rng() < 0.25);
  }
  return overrides;
}

/**
 * Random edits in the permission editor: toggles, grants and revocations, denies and resets of the
 * rows it shows (the paths the template and the overrides name) and of paths an admin types in.
 */
function edit(draft: AllowlistDraft, rng: () => number): AllowlistDraft {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(rng() * list.length)];
  const rows = draft.paths();
  let next = draft;
  for (let n = 1 + Math.floor(rng() * 8); n > 0; n -= 1) {
    const typed = rng() < 0.3;
    const path = typed ? respell(pick([...rows, ...EVERY_PATH]), rng) : pick(rows.length > 0 ? rows : EVERY_PATH);
    const method = pick(HTTP_METHODS);
    const op = rng();
    if (op < 0.5) next = next.toggle(path, method);
    else if (op < 0.7) next = next.set(path, method, rng() < 0.5);
    else if (op < 0.85) next = next.deny(path);
    else next = next.reset(path);
  }
  return next;
}

/** Keys and methods in one order: the order of either is presentation, not permission. */
function canonical(map: AllowlistMap): [string, string[]][] {
  return Object.entries(map)
    .map(([path, methods]): [string, string[]] => [path, [...methods].sort()])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

function grantSet(grants: readonly Grant[]): string[] {
  return grants.map((g) => `${g.method} ${g.path}`).sort();
}

/**
 * The dashboard's permission editor and the proxy must agree: for every template of the fixture
 * repository, random edits made with the editor's draft (`AllowlistDraft`, the code the dashboard
 * runs) are saved through the admin API, and the server's effective allowlist, its per-route view and
 * the revision's added and removed grants must be what the draft showed before the save.
 */
describe('allowlist agreement: the dashboard draft and the server', () => {
  let t: TestApp;
  let admin: AdminClient;
  let upstream: FakeServarr;
  let service: ServiceDto;
  const templateIds = new Map<string, string>();
  /** What the random edits exercised, so that a generator gone tame fails the run instead of passing it. */
  const exercised = { saves: 0, respelled: 0, withChanges: 0 };

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none' });
    admin = await t.admin();
    upstream = await FakeServarr.start({ type: 'radarr' });
    service = await seedService(admin, upstream);
    // Each file becomes the block of the one service type under test (a template's content is all that matters).
    const store = t.app.get(TemplatesService);
    const set = new Map(FILES.map((f) => [f.name, { [service.type]: f.block }]));
    await store.upsertRepositoryTemplates(set);
    await store.published();
    for (const template of (await admin.get('/api/admin/v1/templates').expect(200)).body as TemplateDto[])
      templateIds.set(template.name, template.id);
  });
  afterAll(async () => {
    await upstream?.stop();
    await t?.close();
  });

  it(`reads all ${FILES.length} template files of the fixture repository`, () => {
    expect(FILES.length).toBeGreaterThanOrEqual(60);
    expect(FILES.map((f) => f.name).filter((name) => !templateIds.has(name))).toEqual([]);
  });

  it.each(FILES.map((f, i) => [f.file, f.name, i] as const))(
    '%s: identical effective allowlists, per-route grants and added/removed grants',
    async (file, name, i) => {
      const rng = random(seedOf(file));
      const { proxy } = await seedProxy(admin, {
        service,
        app: { name: `Agreement ${i}`, slug: `agreement-${i}`, templateId: found(templateIds.get(name), name) },
      });
      let allowlist = (await admin.get(`/api/admin/v1/proxies/${proxy.id}/allowlist`).expect(200))
        .body as AllowlistResponse;

      for (let round = 1; round <= ROUNDS; round += 1) {
        const where = { seed: SEED, file, round };
        if (round === 1 || rng() < 0.5) {
          const stored = await admin.put(`/api/admin/v1/proxies/${proxy.id}/config`, {
            overrides: storedOverrides(allowlist.template, rng),
            active: true,
          });
          expect({ ...where, stored: stored.status }).toEqual({ ...where, stored: 200 });
          allowlist = stored.body as AllowlistResponse;
        }
        // What the editor loads, then edits.
        const loaded = AllowlistDraft.from(allowlist.template, allowlist.overrides);
        expect({ ...where, effective: canonical(loaded.effectiveAllowlist()) }).toEqual({
          ...where,
          effective: canonical(allowlist.effective),
        });
        const draft = edit(loaded, rng);
        if (!draft.dirty) continue;
        const shown = draft.changes();

        const saved = await admin.put(`/api/admin/v1/proxies/${proxy.id}/config`, {
          overrides: draft.overrides,
          active: true,
        });
        expect({ ...where, status: saved.status, refused: saved.status === 200 ? null : saved.body }).toEqual({
          ...where,
          status: 200,
          refused: null,
        });
        allowlist = saved.body as AllowlistResponse;
        const templateShapes = new Map(Object.keys(allowlist.template).map((path) => [routeShape(path), path]));
        exercised.saves += 1;
        if (Object.keys(allowlist.overrides).some((path) => (templateShapes.get(routeShape(path)) ?? path) !== path))
          exercised.respelled += 1;
        if (shown.added.length + shown.removed.length > 0) exercised.withChanges += 1;
        expect({ ...where, effective: canonical(draft.effectiveAllowlist()) }).toEqual({
          ...where,
          effective: canonical(allowlist.effective),
        });

        const [revision] = (
          (await admin.get(`/api/admin/v1/proxies/${proxy.id}/revisions?limit=1`).expect(200)).body as Page<RevisionDto>
        ).items;
        const { added, removed } = found(revision, 'the new revision').summary;
        expect({ ...where, added: shown.added.length, removed: shown.removed.length }).toEqual({
          ...where,
          added: added.length,
          removed: removed.length,
        });
        expect({ ...where, added: grantSet(shown.added), removed: grantSet(shown.removed) }).toEqual({
          ...where,
          added: grantSet(added),
          removed: grantSet(removed),
        });

        // Row by row: what the editor shows for each route the server lists, after the save.
        const reloaded = AllowlistDraft.from(allowlist.template, allowlist.overrides);
        const endpoints = (await admin.get(`/api/admin/v1/proxies/${proxy.id}/endpoints`).expect(200))
          .body as EndpointsResponse;
        const rows = (view: 'server' | 'draft') =>
          endpoints.items.map((item) => ({
            path: item.path,
            overridden: view === 'server' ? item.override !== null : reloaded.hasOverride(item.path),
            methods: item.methods.map((m) => ({
              method: m.method,
              ...(view === 'server'
                ? { granted: m.effective, template: m.template }
                : (({ granted, template }) => ({ granted, template }))(reloaded.methodState(item.path, m.method))),
            })),
          }));
        expect({ ...where, rows: rows('draft') }).toEqual({ ...where, rows: rows('server') });
      }
    },
  );

  it('exercised saves with routes spelled unlike the template and with added or removed grants', () => {
    expect(exercised.saves).toBeGreaterThanOrEqual(FILES.length * 2);
    expect(exercised.respelled).toBeGreaterThanOrEqual(FILES.length / 2);
    expect(exercised.withChanges).toBeGreaterThanOrEqual(FILES.length);
  });
});
