// Lints probe snippets as files at given paths (which need not exist) with the workspace's own ESLint
// configuration, the module-boundary rules only (Nx's and the entity entry points' `no-restricted-imports`). Reads [{filePath, code}] as JSON on stdin and writes,
// for each, the messages of every rule that reported, as JSON on stdout. Run by boundaries.spec.ts in
// a process of its own: ESLint loads eslint.config.mjs with a dynamic import, which jest's sandbox
// refuses.
import { join } from 'node:path';
import { ESLint } from 'eslint';

const RULES = new Set(['@nx/enforce-module-boundaries', 'no-restricted-imports']);
const root = process.cwd();
const probes = JSON.parse(
  await new Promise((resolve) => {
    let text = '';
    process.stdin.on('data', (chunk) => (text += chunk));
    process.stdin.on('end', () => resolve(text));
  }),
);
const eslint = new ESLint({
  cwd: root,
  // Only the boundary rules: the typed rules would need every probe file in a TypeScript project.
  ruleFilter: ({ ruleId }) => RULES.has(ruleId),
  overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parserOptions: { projectService: false } } }],
});
const results = [];
for (const { filePath, code } of probes) {
  const [result] = await eslint.lintText(code, { filePath: join(root, filePath) });
  results.push(result.messages.map((m) => ({ ruleId: m.ruleId, message: m.message })));
}
process.stdout.write(JSON.stringify(results));
