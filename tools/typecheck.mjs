// Type-checks every project's tsconfig (app, lib, spec) with tsc --noEmit, two at a time.
import { spawn } from 'node:child_process';
import { globSync } from 'node:fs';

const configs = [
  ...globSync('apps/*/tsconfig.{app,lib,spec}.json'),
  ...globSync('libs/**/tsconfig.{app,lib,spec}.json', { exclude: (p) => p.includes('node_modules') }),
  ...globSync('tools/*/tsconfig.spec.json'),
  'tools/tsconfig.json',
].sort();

let failed = 0;
async function check(config) {
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, ['node_modules/typescript/bin/tsc', '--noEmit', '-p', config], {
      stdio: 'inherit',
    });
    child.on('exit', resolve);
  });
  console.log(`${code === 0 ? 'ok  ' : 'FAIL'} ${config}`);
  if (code !== 0) failed += 1;
}
const queue = [...configs];
await Promise.all(
  [0, 1].map(async () => {
    while (queue.length > 0) await check(queue.shift());
  }),
);
if (failed > 0) {
  console.error(`${failed} of ${configs.length} projects do not type-check`);
  process.exit(1);
}
