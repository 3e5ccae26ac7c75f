import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AppConfig, loadConfig } from '@arrbiter/server/config';
import { generateProxyKey, keyDigest, SecretBox } from '@arrbiter/server/crypto';
import { openDataSource } from '@arrbiter/server/database';
import { readTemplateDirectory, TemplateSet } from '@arrbiter/server/templates';
import { fakeOpenApi } from '@arrbiter/tools/fake-servarr';

export const SHARED = resolve(__dirname, '../../../../shared/fixtures');

/** What a benchmark client needs to call one app's proxy. */
export interface SeededApp {
  slug: string;
  key: string;
}

export interface SeedResult {
  apps: SeededApp[];
  /** Where the OpenAPI catalog and the grants came from. */
  source: string;
}

/** The Radarr v3 description: the real one from ../shared when present, else the project's own. */
export function radarrDescription(): { document: unknown; real: boolean } {
  const file = join(SHARED, 'openapi/radarr-v3.json');
  if (existsSync(file)) return { document: JSON.parse(readFileSync(file, 'utf8')), real: true };
  return { document: fakeOpenApi('v3'), real: false };
}

/**
 * The real community templates (every service type) from ../shared, else one project template; and
 * the names of the Radarr ones that allow the benchmark's reads.
 */
async function templates(): Promise<{ all: TemplateSet; readers: string[] }> {
  const dir = join(SHARED, 'template-repo');
  const all: TemplateSet = existsSync(dir)
    ? (await readTemplateDirectory(dir)).templates
    : new Map([['bench', { radarr: { '/api/v3/movie': ['get'], '/api/v3/movie/{id}': ['get'] } }]]);
  const readers = [...all]
    .filter(([, blocks]) => blocks['radarr']?.['/api/v3/movie']?.includes('get'))
    .filter(([, blocks]) => blocks['radarr']?.['/api/v3/movie/{id}']?.includes('get'))
    .map(([name]) => name);
  return { all, readers };
}

export function benchConfig(env: NodeJS.ProcessEnv): AppConfig {
  return loadConfig({ LOG_LEVEL: 'silent', ...env });
}

/**
 * Migrates a fresh database and loads a realistic state straight into it: one Radarr service, its
 * catalog, the template repository's templates, `count` apps with one proxy each whose grants come
 * from those templates, and extra overrides on a tenth of them.
 */
export async function seed(
  env: NodeJS.ProcessEnv,
  upstreamUrl: string,
  upstreamKey: string,
  count: number,
  /**
   * Whether the proxies' responses are scrubbed (the default, as for a new proxy); false: raw; `even`:
   * the apps of even index scrub and the others do not (a feature's phases in one process, `phases.ts`).
   */
  scrub: boolean | 'even' = true,
): Promise<SeedResult> {
  const config = benchConfig(env);
  const box = new SecretBox(config);
  const dataSource = await openDataSource(config, { entities: [], migrate: true });
  try {
    const { document, real } = radarrDescription();
    const { all, readers } = await templates();
    const templateIds = new Map<string, string>();
    for (const [name, blocks] of all) {
      const id = randomUUID();
      templateIds.set(name, id);
      await dataSource.query(`INSERT INTO template (id, name, source, blocks) VALUES ($1, $2, 'repository', $3)`, [
        id,
        name,
        JSON.stringify(blocks),
      ]);
    }
    await dataSource.query(
      `INSERT INTO openapi_document (service_type, api_version, document, source, route_count) VALUES ('radarr', 'v3', $1, 'upload', 0)`,
      [JSON.stringify(document)],
    );
    const serviceId = randomUUID();
    await dataSource.query(
      `INSERT INTO service (id, name, type, base_url, api_key_ciphertext, api_versions, upstream_version) VALUES ($1, 'Radarr', 'radarr', $2, $3, '["v3"]', '5.0')`,
      [serviceId, upstreamUrl, box.encrypt(upstreamKey, 'service-api-key')],
    );
    const apps: SeededApp[] = [];
    for (let start = 0; start < count; start += 500) {
      const ids: string[] = [];
      const slugs: string[] = [];
      const proxyIds: string[] = [];
      const digests: string[] = [];
      const ciphertexts: string[] = [];
      const overrides: string[] = [];
      const appTemplates: string[] = [];
      const scrubs: boolean[] = [];
      for (let i = start; i < Math.min(count, start + 500); i += 1) {
        const key = generateProxyKey();
        const slug = `app-${i}`;
        // The template grants the reads; the overrides add the test routes (and more on a tenth).
        const grant: Record<string, string[]> = { '/api/v3/test/stream': ['get'], '/api/v3/test/json': ['get'] };
        appTemplates.push(templateIds.get(readers[i % readers.length]) as string);
        if (i % 10 === 0)
          Object.assign(grant, {
            '/api/v3/calendar': ['get'],
            '/api/v3/queue/{id}': ['delete'],
            '/api/v3/custom/{name}/report': ['get'],
          });
        ids.push(randomUUID());
        slugs.push(slug);
        proxyIds.push(randomUUID());
        digests.push(keyDigest(key));
        ciphertexts.push(box.encrypt(key, 'proxy-key'));
        overrides.push(JSON.stringify(grant));
        scrubs.push(scrub === 'even' ? i % 2 === 0 : scrub);
        apps.push({ slug, key });
      }
      await dataSource.query(
        `INSERT INTO app (id, name, slug, active, template_id) SELECT u.id, u.slug, u.slug, true, u.template_id FROM unnest($1::uuid[], $2::varchar[], $3::uuid[]) AS u(id, slug, template_id)`,
        [ids, slugs, appTemplates],
      );
      await dataSource.query(
        `INSERT INTO proxy (id, app_id, service_id, active, key_digest, key_ciphertext, overrides, scrub)
         SELECT u.id, u.app_id, $3, true, u.digest, u.ciphertext, u.overrides::jsonb, u.scrub
         FROM unnest($1::uuid[], $2::uuid[], $4::char(64)[], $5::text[], $6::text[], $7::boolean[]) AS u(id, app_id, digest, ciphertext, overrides, scrub)`,
        [proxyIds, ids, serviceId, digests, ciphertexts, overrides, scrubs],
      );
    }
    return {
      apps,
      source: real
        ? 'real Radarr v3 catalog and community templates from ../shared/fixtures'
        : "the project's own fixtures",
    };
  } finally {
    await dataSource.destroy();
  }
}
