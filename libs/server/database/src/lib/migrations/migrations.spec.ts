import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { MIGRATIONS } from './index';

type MigrationClass = new () => MigrationInterface;

/** The migration files of this directory: `<epoch>-<PascalName>.ts`, and what each one exports. */
const FILES = readdirSync(__dirname)
  .filter((file) => file.endsWith('.ts') && file !== 'index.ts' && !file.endsWith('.spec.ts'))
  .sort()
  .map((file) => ({
    file,
    exports: Object.values(jest.requireActual<Record<string, unknown>>(join(__dirname, file))),
  }));

/** The SQL a migration step sends, in order, through a fake query runner. */
async function statementsOf(step: (runner: QueryRunner) => Promise<unknown>): Promise<string[]> {
  const statements: string[] = [];
  const runner = { query: async (sql: string) => void statements.push(sql) } as unknown as QueryRunner;
  await step(runner);
  return statements;
}

/**
 * The schema objects a statement creates or drops, named the same on both sides:
 * `table app`, `index IDX_…`, `constraint FK_…`, `column proxy.learning_until`. Data statements name none.
 */
function schemaChange(sql: string): { action: 'create' | 'drop'; object: string } | undefined {
  const patterns: [RegExp, 'create' | 'drop', (m: RegExpExecArray) => string][] = [
    [/^CREATE TABLE "(\w+)"/, 'create', (m) => `table ${m[1]}`],
    [/^DROP TABLE "(\w+)"$/, 'drop', (m) => `table ${m[1]}`],
    [/^CREATE (?:UNIQUE )?INDEX "(\w+)" ON "\w+"/, 'create', (m) => `index ${m[1]}`],
    [/^DROP INDEX "public"\."(\w+)"$/, 'drop', (m) => `index ${m[1]}`],
    [/^ALTER TABLE "(\w+)" ADD CONSTRAINT "(\w+)"/, 'create', (m) => `constraint ${m[1]}.${m[2]}`],
    [/^ALTER TABLE "(\w+)" DROP CONSTRAINT "(\w+)"$/, 'drop', (m) => `constraint ${m[1]}.${m[2]}`],
    [/^ALTER TABLE "(\w+)" ADD "(\w+)"/, 'create', (m) => `column ${m[1]}.${m[2]}`],
    [/^ALTER TABLE "(\w+)" DROP COLUMN "(\w+)"$/, 'drop', (m) => `column ${m[1]}.${m[2]}`],
    [/^CREATE SEQUENCE "(\w+)"$/, 'create', (m) => `sequence ${m[1]}`],
    [/^DROP SEQUENCE "(\w+)"$/, 'drop', (m) => `sequence ${m[1]}`],
  ];
  for (const [pattern, action, object] of patterns) {
    const match = pattern.exec(sql);
    if (match) return { action, object: object(match) };
  }
  if (/^(INSERT|UPDATE|DELETE)\b/.test(sql)) return undefined;
  // A change to a column that exists before and after (NOT NULL, DEFAULT) creates and drops nothing.
  if (/^ALTER TABLE "\w+" ALTER COLUMN "\w+" (SET|DROP) (NOT NULL|DEFAULT)\b/.test(sql)) return undefined;
  throw new Error(`This spec does not know what the statement changes: ${sql.slice(0, 120)}`);
}

/** The schema changes of a step, in order: `+table app`, `-constraint admin_user.UQ_…`. */
const changesOf = (statements: string[]) =>
  statements.flatMap((sql) => {
    const change = schemaChange(sql);
    return change ? [`${change.action === 'create' ? '+' : '-'}${change.object}`] : [];
  });

/** What undoes a step's changes: each one inverted, in the reverse order. */
const inverseOf = (changes: string[]) =>
  [...changes].reverse().map((change) => `${change.startsWith('+') ? '-' : '+'}${change.slice(1)}`);

describe('MIGRATIONS', () => {
  it('lists every migration file of the directory, each once, oldest first', () => {
    const listed = FILES.map(({ file, exports }) => {
      expect([file, exports.length]).toEqual([file, 1]);
      return exports[0];
    });
    expect(MIGRATIONS).toEqual(listed);
    expect(new Set(MIGRATIONS).size).toBe(MIGRATIONS.length);
  });

  it('names each file `<epoch>-<PascalName>.ts` and its class and migration `<PascalName><epoch>`', () => {
    expect(FILES.length).toBeGreaterThan(0);
    let previous = 0;
    for (const { file, exports } of FILES) {
      const match = /^(\d{13})-([A-Z][A-Za-z0-9]*)\.ts$/.exec(file);
      expect([file, match !== null]).toEqual([file, true]);
      const [, epoch, name] = match as RegExpExecArray;
      const migration = exports[0] as MigrationClass;
      expect([file, migration.name]).toEqual([file, `${name}${epoch}`]);
      expect([file, new migration().name]).toEqual([file, `${name}${epoch}`]);
      expect(Number(epoch)).toBeGreaterThan(previous);
      previous = Number(epoch);
    }
  });

  describe.each(MIGRATIONS.map((migration) => [migration.name, migration] as const))('%s', (_name, Migration) => {
    it('down undoes exactly what up changes (drops what it creates, restores what it drops), in the reverse order', async () => {
      const migration = new Migration();
      const up = changesOf(await statementsOf((runner) => migration.up(runner)));
      const down = changesOf(await statementsOf((runner) => migration.down(runner)));
      expect(up.filter((change) => change.startsWith('+')).length).toBeGreaterThan(0);
      expect(down).toEqual(inverseOf(up));
    });
  });
});
