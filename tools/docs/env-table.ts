/**
 * Rewrites the table of environment variables in docs/configuration.md (between
 * `<!-- env-table:start -->` and `<!-- env-table:end -->`) from `ENV_VARIABLES`
 * (libs/server/config/src/lib/env-variables.ts):
 *   npm run docs:env            writes it
 *   npm run docs:env -- --check exits 1 when the file is not up to date
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderEnvTable, replaceEnvTable } from '@arrbiter/server/config';

const file = resolve(__dirname, '../../docs/configuration.md');
const before = readFileSync(file, 'utf8');
const after = replaceEnvTable(before, renderEnvTable());
if (process.argv.includes('--check')) {
  if (after !== before) {
    console.error(`${file} is not up to date: run npm run docs:env`);
    process.exit(1);
  }
} else if (after !== before) {
  writeFileSync(file, after);
  console.log(`${file}: environment table rewritten`);
} else console.log(`${file}: up to date`);
