import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AppConfig, loadConfig } from '@arrbiter/server/config';
import { generateProxyKey, keyDigest, SecretBox } from '@arrbiter/server/crypto';
import { openDataSource } from '@arrbiter/server/database';
import { fakeOpenApi } from '@arrbiter/tools/fake-servarr';

const SHARED = resolve(__dirname, '../../../../shared/fixtures');

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
function radarrDescription(): { document: unknown; real: boolean } {
  const file = join(SHARED, 'openapi/radarr-v3.json');
  if (existsSync(file)) return { document: JSON.parse(readFileSync(file, 'utf8')), real: true };
  return { document: fakeOpenApi('v3'), real: false };
}

/** Grant sets of the real community templates for Radarr that allow the benchmark's reads. */
function templateGrants(): Record<string, string[]>[] {
  const dir = join(SHARED, 'template-repo/radarr');
  const fallback = [{ '/api/v3/movie': ['get'], '/api/v3/movie/{id}': ['get'] }];
  if (!existsSync(dir)) return fallback;
  const grants = readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')) as Record<string, string[]>)
    .filter((g) => g['/api/v3/movie']?.includes('get') && g['/api/v3/movie/{id}']?.includes('get'));
  return grants.length > 0 ? grants : fallback;
}

export function benchConfig(env: NodeJS.ProcessEnv): AppConfig {
  return loadConfig({ LOG_LEVEL: 'silent', ...env });
}

/**
 * Migrates a fresh database and loads a realistic state straight into it: one Radarr service, its
 * catalog, `count` apps with one proxy each whose grants come from the template repository (as
 * overrides), and extra overrides on a tenth of them.
 */
export async function seed(
  env: NodeJS.ProcessEnv,
  upstreamUrl: string,
  upstreamKey: string,
  count: number,
): Promise<SeedResult> {
  const config = benchConfig(env);
  const box = new SecretBox(config);
  const dataSource = await openDataSource(config, { entities: [], migrate: true });
  try {
    const { document, real } = radarrDescription();
    const grants = templateGrants();
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
      for (let i = start; i < Math.min(count, start + 500); i += 1) {
        const key = generateProxyKey();
        const slug = `app-${i}`;
        const grant: Record<string, string[]> = { ...grants[i % grants.length], '/api/v3/test/stream': ['get'] };
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
        apps.push({ slug, key });
      }
      await dataSource.query(
        `INSERT INTO app (id, name, slug, active) SELECT u.id, u.slug, u.slug, true FROM unnest($1::uuid[], $2::varchar[]) AS u(id, slug)`,
        [ids, slugs],
      );
      await dataSource.query(
        `INSERT INTO proxy (id, app_id, service_id, active, key_digest, key_ciphertext, overrides)
         SELECT u.id, u.app_id, $3, true, u.digest, u.ciphertext, u.overrides::jsonb
         FROM unnest($1::uuid[], $2::uuid[], $4::char(64)[], $5::text[], $6::text[]) AS u(id, app_id, digest, ciphertext, overrides)`,
        [proxyIds, ids, serviceId, digests, ciphertexts, overrides],
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
