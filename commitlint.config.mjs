// The commit-msg hook's rules (.husky/commit-msg): conventional commits, `type(scope): subject` with the
// header at most 100 characters; the body says why (a warning when it is missing). Body lines may run
// long (paths, URLs, figures).
export default {
  extends: ['@commitlint/config-conventional'],
  rules: {
    'header-max-length': [2, 'always', 100],
    'body-empty': [1, 'never'],
    'body-max-line-length': [0],
    'footer-max-line-length': [0],
  },
};
