/**
 * Generates a migration from the difference between the entities and the migrations so far:
 *   npm run db:migration:generate -- <PascalName>
 * It migrates a fresh embedded database, asks TypeORM's schema builder what is missing, and writes
 * `libs/server/database/src/lib/migrations/<epoch>-<PascalName>.ts` with `up()` and `down()`.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig } from '@arrbiter/server/config';
import { openDataSource } from '@arrbiter/server/database';
import { ENTITIES } from '@arrbiter/server/schema';

const MIGRATIONS_DIR = resolve(__dirname, '../../libs/server/database/src/lib/migrations');

function quote(sql: string): string {
  return '`' + sql.replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${') + '`';
}

async function main(): Promise<void> {
  const name = process.argv[2];
  if (!name || !/^[A-Z][A-Za-z0-9]*$/.test(name)) {
    console.error('Usage: npm run db:migration:generate -- <PascalCaseName>');
    process.exit(2);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'arrbiter-migration-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const dataSource = await openDataSource(config, { entities: ENTITIES, migrate: true });
  try {
    const sql = await dataSource.driver.createSchemaBuilder().log();
    if (sql.upQueries.length === 0) {
      console.log('Entities and migrations agree: nothing to generate.');
      return;
    }
    const epoch = Date.now();
    const className = `${name}${epoch}`;
    const up = sql.upQueries.map((q) => `    await queryRunner.query(${quote(q.query)});`).join('\n');
    const down = [...sql.downQueries]
      .reverse()
      .map((q) => `    await queryRunner.query(${quote(q.query)});`)
      .join('\n');
    const file = `${epoch}-${name}`;
    writeFileSync(
      join(MIGRATIONS_DIR, `${file}.ts`),
      `import { MigrationInterface, QueryRunner } from 'typeorm';\n\n` +
        `export class ${className} implements MigrationInterface {\n` +
        `  name = '${className}';\n\n` +
        `  async up(queryRunner: QueryRunner): Promise<void> {\n${up}\n  }\n\n` +
        `  async down(queryRunner: QueryRunner): Promise<void> {\n${down}\n  }\n}\n`,
    );
    const indexFile = join(MIGRATIONS_DIR, 'index.ts');
    const index = readFileSync(indexFile, 'utf8')
      .replace(/^(import \{ MigrationInterface \} from 'typeorm';\n)/m, `$1import { ${className} } from './${file}';\n`)
      .replace(
        /\[([^\]]*)\];\s*$/,
        (_m, items: string) =>
          `[${[
            ...items
              .split(',')
              .map((s) => s.trim())
              .filter(Boolean),
            className,
          ].join(', ')}];\n`,
      );
    writeFileSync(indexFile, index);
    console.log(`Wrote ${file}.ts (${sql.upQueries.length} statements). Review it, then run the tests.`);
  } finally {
    await dataSource.destroy();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
