import { relative } from 'node:path';

// The pre-commit hook's checks (.husky/pre-commit), on the staged files only: the format check, then the
// lint of every project those files touch (nx affected, lint only; its cache makes a repeat free).
// Checks only, nothing rewritten: run with --no-stash, so no stash is made of work in progress.
export default {
  '*': 'prettier --check --ignore-unknown',
  '*.{ts,tsx,js,mjs,cjs,html,json}': (files) =>
    `nx affected -t lint --files=${files.map((file) => relative(process.cwd(), file)).join(',')}`,
};
