import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { routeRisk } from '@arrbiter/server/permissions';
import { fakeOpenApi } from '@arrbiter/tools/fake-servarr';
import { radarrV3OpenApi } from '../testing/radarr-v3.openapi';
import { parseOpenApi } from './openapi';

/** The real OpenAPI descriptions, beside the repository (`../shared/fixtures/openapi`), as in CI. */
const OPENAPI_FIXTURES = resolve(__dirname, '../../../../../../shared/fixtures/openapi');

/** Every description the project bundles or tests against: (service type, API version, document). */
function bundledDescriptions(): { name: string; type: string; version: string; document: unknown }[] {
  if (!existsSync(OPENAPI_FIXTURES)) throw new Error(`The shared OpenAPI fixtures are missing: ${OPENAPI_FIXTURES}`);
  const fixtures = readdirSync(OPENAPI_FIXTURES)
    .filter((file) => /^[a-z]+-v\d+\.json$/.test(file))
    .sort()
    .map((file) => {
      const [, type, version] = /^([a-z]+)-(v\d+)\.json$/.exec(file) as RegExpExecArray;
      return { name: file, type, version, document: JSON.parse(readFileSync(join(OPENAPI_FIXTURES, file), 'utf8')) };
    });
  return [
    ...fixtures,
    { name: 'catalog testing radarr-v3.openapi.ts', type: 'radarr', version: 'v3', document: radarrV3OpenApi },
    { name: 'fake-servarr fakeOpenApi(v3)', type: 'radarr', version: 'v3', document: fakeOpenApi('v3') },
  ];
}

/**
 * Every sensitive (description, method, route) with its reason. Reviewed by hand once (see the
 * commit that added it); a change to the rule or to a description shows here as a snapshot diff to
 * review again.
 */
describe('routeRisk over every bundled OpenAPI description', () => {
  const descriptions = bundledDescriptions();

  it('finds the seven shared descriptions', () => {
    expect(descriptions.map((d) => d.name).filter((n) => n.endsWith('.json'))).toEqual([
      'lidarr-v1.json',
      'prowlarr-v1.json',
      'radarr-v3.json',
      'readarr-v1.json',
      'sonarr-v3.json',
      'sonarr-v5.json',
      'whisparr-v3.json',
    ]);
  });

  for (const { name, type, version, document } of descriptions) {
    it(`lists what is sensitive in ${name}`, () => {
      const lines: string[] = [];
      for (const route of parseOpenApi(document)) {
        for (const method of Object.keys(route.operations)) {
          const risk = routeRisk(type, version, method, route);
          if (risk.sensitive) lines.push(`${method.toUpperCase().padEnd(6)} ${route.path} — ${risk.reason}`);
        }
      }
      expect(lines.join('\n')).toMatchSnapshot();
    });
  }

  it('flags the v5 secrets and controls, and no plain library read', () => {
    const sonarr5 = descriptions.find((d) => d.name === 'sonarr-v5.json');
    const routes = parseOpenApi(sonarr5?.document);
    const risk = (method: string, path: string) => {
      const route = routes.find((r) => r.path === path);
      if (!route) throw new Error(`${path} is not in sonarr-v5.json`);
      return routeRisk('sonarr', 'v5', method, route).sensitive;
    };
    for (const [method, path] of [
      ['get', '/api/v5/settings/general'],
      ['put', '/api/v5/settings/general/{id}'],
      ['get', '/api/v5/settings/update'],
      ['put', '/api/v5/settings/update/{id}'],
      ['get', '/api/v5/connection'],
      ['get', '/api/v5/connection/{id}'],
      ['get', '/api/v5/indexer'],
      ['get', '/api/v5/downloadclient/{id}'],
      ['get', '/api/v5/system/backup'],
      ['post', '/api/v5/command'],
    ])
      expect([method, path, risk(method, path)]).toEqual([method, path, true]);
    for (const [method, path] of [
      ['get', '/api/v5/series'],
      ['get', '/api/v5/series/{id}'],
      ['get', '/api/v5/calendar'],
      ['get', '/api/v5/episode'],
      ['get', '/api/v5/queue'],
      ['get', '/api/v5/settings/ui'],
      ['get', '/api/v5/system/status'],
    ])
      expect([method, path, risk(method, path)]).toEqual([method, path, false]);
  });
});
