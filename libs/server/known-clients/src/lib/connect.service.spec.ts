import { effectiveAllowlist, grantsOf, RouteMatcher } from '@arrbiter/server/catalog';
import { readTemplateDirectory } from '@arrbiter/server/templates';
import { fixtureCatalog, TEMPLATE_FIXTURES } from '../testing/fixtures';
import { KNOWN_CLIENTS } from './catalogue';
import { clientCalls, connectPlan } from './connect.service';
import { fitOf } from './fit';
import type { KnownClient } from './known-client';
import { serviceTypesOf } from './known-clients.service';

const catalogs = new Map<string, RouteMatcher>();
const catalog = (type: string) => {
  let matcher = catalogs.get(type);
  if (!matcher) catalogs.set(type, (matcher = fixtureCatalog(type)));
  return matcher;
};
const client = (id: string) => KNOWN_CLIENTS.find((c) => c.id === id) as KnownClient;
const COMMAND = { method: 'post', route: '/api/v3/command' };

describe(connectPlan.name, () => {
  it('grants every call of the client that is not sensitive: what stays missing is exactly the sensitive ones', () => {
    const calls = clientCalls(client('overseerr'), 'radarr', catalog('radarr'));
    expect(calls.filter((c) => c.risk.sensitive).map((c) => `${c.method} ${c.route}`)).toEqual([
      'post /api/v3/command',
    ]);
    const { overrides, granted } = connectPlan(calls, {}, []);
    const effective = effectiveAllowlist({}, overrides);
    expect(granted).toBe(grantsOf(effective).length);
    const fit = fitOf(client('overseerr'), 'radarr', catalog('radarr'), effective);
    expect(fit.missing.map((m) => `${m.method} ${m.route}`)).toEqual(['post /api/v3/command']);
    expect(fit.unused).toEqual([]);
  });

  it('grants a sensitive call when named, by route shape (any parameter names, any case of the method)', () => {
    const calls = clientCalls(client('overseerr'), 'radarr', catalog('radarr'));
    const named = connectPlan(calls, {}, [{ method: 'POST', route: '/api/v3/Command' }]);
    expect(
      fitOf(client('overseerr'), 'radarr', catalog('radarr'), effectiveAllowlist({}, named.overrides)).missing,
    ).toEqual([]);
    expect(named.granted).toBe(connectPlan(calls, {}, []).granted + 1);
  });

  it("keeps the template's block and adds the client's calls over it", async () => {
    const { templates } = await readTemplateDirectory(TEMPLATE_FIXTURES);
    const block = templates.get('homepage')?.['radarr'] ?? {};
    expect(grantsOf(block).length).toBeGreaterThan(0);
    const { overrides } = connectPlan(clientCalls(client('overseerr'), 'radarr', catalog('radarr')), block, [COMMAND]);
    const effective = effectiveAllowlist(block, overrides);
    const grants = new Set(grantsOf(effective).map((g) => `${g.method} ${g.path}`));
    for (const grant of grantsOf(block))
      expect([grant, grants.has(`${grant.method} ${grant.path}`)]).toEqual([grant, true]);
    expect(fitOf(client('overseerr'), 'radarr', catalog('radarr'), effective).missing).toEqual([]);
  });

  it('fits every client of the catalogue on every type it calls: with its sensitive calls named, nothing is missing', () => {
    let sensitive = 0;
    for (const known of KNOWN_CLIENTS) {
      for (const type of serviceTypesOf(known)) {
        const calls = clientCalls(known, type, catalog(type));
        const named = calls.filter((c) => c.risk.sensitive);
        sensitive += named.length;
        const without = fitOf(known, type, catalog(type), effectiveAllowlist({}, connectPlan(calls, {}, []).overrides));
        expect([known.id, type, without.missing.every((m) => m.risk.sensitive), without.missing.length]).toEqual([
          known.id,
          type,
          true,
          named.length,
        ]);
        const all = fitOf(known, type, catalog(type), effectiveAllowlist({}, connectPlan(calls, {}, named).overrides));
        expect([known.id, type, all.missing]).toEqual([known.id, type, []]);
      }
    }
    expect(sensitive).toBeGreaterThan(20);
  });
});
