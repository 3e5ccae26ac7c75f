import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

/** The repository, whose node_modules hold the validator. */
const ROOT = resolve(__dirname, '../../../..');

/** Reads a description from stdin and writes `@seriousme/openapi-schema-validator`'s verdict to stdout. */
const VALIDATE = `
import { Validator } from '@seriousme/openapi-schema-validator';
let input = '';
for await (const chunk of process.stdin) input += chunk;
const validator = new Validator();
const result = await validator.validate(JSON.parse(input));
process.stdout.write(JSON.stringify({ ...result, version: validator.version }));
`;

/**
 * Validates an OpenAPI description against the official JSON schema of its version, with
 * `@seriousme/openapi-schema-validator`. That package is ESM only, which jest's CommonJS module system
 * cannot load: it runs in a Node process of its own.
 */
export function validateOpenApi(document: object): { valid: boolean; version: string; errors?: unknown } {
  const run = spawnSync(process.execPath, ['--input-type=module', '--eval', VALIDATE], {
    cwd: ROOT,
    input: JSON.stringify(document),
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (run.status !== 0) throw new Error(`the validator failed: ${run.stderr}`);
  return JSON.parse(run.stdout) as { valid: boolean; version: string; errors?: unknown };
}
