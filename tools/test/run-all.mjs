// The whole test suite in one command (`npm test`), with one total at the end.
//
// Jest runs twice: the server side needs `--experimental-vm-modules` (the embedded PostgreSQL,
// PGlite, loads parts of itself with dynamic import()), which the Angular test environment does not
// support. Both runs use the root jest config; the totals of both are added up.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = mkdtempSync(join(tmpdir(), 'arrbiter-tests-'));
const summary = join(dir, 'summary.jsonl');
const jest = [
  'node_modules/jest/bin/jest.js',
  '--config',
  'jest.config.ts',
  '--maxWorkers=2',
  ...process.argv.slice(2),
];
const browserProjects = ['dashboard'];

function run(label, args, extraNodeOptions) {
  console.log(`\n=== ${label}\n`);
  const nodeOptions = [process.env.NODE_OPTIONS, extraNodeOptions].filter(Boolean).join(' ');
  const result = spawnSync(process.execPath, [...jest, ...args], {
    stdio: 'inherit',
    env: { ...process.env, TZ: 'UTC', NODE_OPTIONS: nodeOptions, ARRBITER_TEST_SUMMARY: summary },
  });
  return result.status ?? 1;
}

const codes = [
  run(
    'server, libraries and end-to-end',
    ['--ignoreProjects', ...browserProjects],
    '--experimental-vm-modules --no-warnings=ExperimentalWarning',
  ),
  run('dashboard', ['--selectProjects', ...browserProjects]),
];

const totals = { passed: 0, failed: 0, skipped: 0 };
try {
  for (const line of readFileSync(summary, 'utf8').split('\n').filter(Boolean)) {
    const part = JSON.parse(line);
    totals.passed += part.passed;
    totals.failed += part.failed;
    totals.skipped += part.skipped;
  }
} catch {
  totals.failed += 1;
}
rmSync(dir, { recursive: true, force: true });
const failedRuns = codes.filter((code) => code !== 0).length;
if (failedRuns > 0 && totals.failed === 0) totals.failed = failedRuns;
console.log(`\nTests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failedRuns > 0 ? 1 : 0);
