import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ENV_TABLE_END, ENV_TABLE_START, renderEnvTable } from './env-docs';
import { ENV_NAMES, ENV_VARIABLES } from './env-variables';
import { loadConfig } from './load-config';

const ROOT = resolve(__dirname, '../../../../..');
const CHART = join(ROOT, 'docker/charts/arrbiter');
const DOCS = join(ROOT, 'docs/configuration.md');

/**
 * Variables the Helm chart deliberately sets no value for; each still works through `extraEnv` /
 * `envFrom`. Every other variable needs a chart value (or a fixed setting) in `templates/`.
 */
const CHART_EXEMPT: Record<string, string> = {
  // The chart mounts the key from a Secret and sets SECRET_KEY_FILE: a key never sits in the pod spec.
  SECRET_KEY: 'only as SECRET_KEY_FILE (secretKey.existingSecret)',
  // Likewise mounted from oidc.clientSecret.existingSecret as OIDC_CLIENT_SECRET_FILE.
  OIDC_CLIENT_SECRET: 'only as OIDC_CLIENT_SECRET_FILE (oidc.clientSecret.existingSecret)',
  // Likewise mounted from templateRepositoryToken.existingSecret as TEMPLATE_REPOSITORY_TOKEN_FILE.
  TEMPLATE_REPOSITORY_TOKEN: 'only as TEMPLATE_REPOSITORY_TOKEN_FILE (templateRepositoryToken.existingSecret)',
  // A switch for measuring the access line's cost (docs/performance.md), not a deployment setting.
  ACCESS_LOG_WRITER: 'a benchmark switch: extraEnv',
  // Likewise the proxy route's way of running its checks.
  PROXY_CHECKS: 'a benchmark switch: extraEnv',
  // Likewise the signal that turns a per-call feature off and on in a running process.
  BENCH_TOGGLE: 'a benchmark switch: extraEnv',
};

/** `{ name → how }` for every variable the chart's templates set. */
function chartVariables(): Map<string, string> {
  const dir = join(CHART, 'templates');
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.(ya?ml|tpl)$/.test(f));
  const found = new Map<string, string>();
  for (const file of files) {
    const text = readFileSync(join(dir, file), 'utf8');
    for (const [, name] of text.matchAll(/- name: ([A-Z][A-Z0-9_]+)\b/g)) found.set(name, `${file}: env`);
    for (const [, key, name] of text.matchAll(/"([a-zA-Z]+)" "([A-Z][A-Z0-9_]+)"/g)) found.set(name, `config.${key}`);
    if (file === 'configmap.yaml') {
      for (const [, name] of text.matchAll(/^ {2}([A-Z][A-Z0-9_]+):/gm)) found.set(name, `${file}: data`);
    }
  }
  return found;
}

describe('the table of environment variables (ENV_VARIABLES)', () => {
  it('is the list loadConfig reads: every name it looks up is a row, and every row is looked up', () => {
    const dir = mkdtempSync(join(tmpdir(), 'arrbiter-env-'));
    try {
      const read = new Set<string>();
      const environment = new Proxy<NodeJS.ProcessEnv>(
        { DATA_DIR: dir },
        {
          get: (target, name) => {
            if (typeof name === 'string') read.add(name);
            return target[name as string];
          },
        },
      );
      loadConfig(environment);
      expect([...read].sort()).toEqual([...ENV_NAMES].sort());
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names each variable once, documents it and gives it a default', () => {
    expect(new Set(ENV_NAMES).size).toBe(ENV_NAMES.length);
    for (const variable of ENV_VARIABLES) {
      expect(variable.description.length).toBeGreaterThan(10);
      expect(variable.default).not.toBe('');
    }
  });

  it('is what docs/configuration.md shows between the env-table markers (npm run docs:env rewrites it)', () => {
    const docs = readFileSync(DOCS, 'utf8');
    const start = docs.indexOf(ENV_TABLE_START);
    const end = docs.indexOf(ENV_TABLE_END);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(start);
    const shown = docs.slice(start + ENV_TABLE_START.length, end).trim();
    // If this fails: `npm run docs:env`, then review and commit docs/configuration.md.
    expect(shown).toBe(renderEnvTable());
    for (const name of ENV_NAMES) expect(shown).toContain(`\`${name}\``);
  });

  it('is covered by the Helm chart: each variable has a value or a fixed setting there, or an exemption', () => {
    const chart = chartVariables();
    const missing = ENV_NAMES.filter((name) => !chart.has(name) && !(name in CHART_EXEMPT));
    expect(missing).toEqual([]);
    // An exemption the chart no longer needs, or one for a variable that is gone, is stale.
    const stale = Object.keys(CHART_EXEMPT).filter(
      (name) => chart.has(name) || !(ENV_NAMES as readonly string[]).includes(name),
    );
    expect(stale).toEqual([]);
    // The chart sets nothing the server does not read.
    const unknown = [...chart.keys()].filter((name) => !(ENV_NAMES as readonly string[]).includes(name));
    expect(unknown).toEqual([]);
  });

  it("has each config.* value the chart maps to a variable in the chart's values.schema.json", () => {
    const schema = JSON.parse(readFileSync(join(CHART, 'values.schema.json'), 'utf8'));
    const keys = Object.keys(schema.properties.config.properties);
    const mapped = [...chartVariables().values()].filter((how) => how.startsWith('config.'));
    expect(mapped.length).toBeGreaterThan(10);
    expect(mapped.map((how) => how.slice('config.'.length)).filter((key) => !keys.includes(key))).toEqual([]);
  });
});
