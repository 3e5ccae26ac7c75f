import nx from '@nx/eslint-plugin';

const BOUNDARIES = {
  enforceBuildableLibDependency: true,
  banTransitiveDependencies: true,
  allow: ['^.*/eslint(\\.base)?\\.config\\.[cm]?[jt]s$'],
};

const DEP_CONSTRAINTS = [
  // Who may import whom, by scope: the dashboard never imports server code.
  { sourceTag: 'scope:server', onlyDependOnLibsWithTags: ['scope:server', 'scope:shared', 'scope:tools'] },
  { sourceTag: 'scope:tools', onlyDependOnLibsWithTags: ['scope:tools', 'scope:shared'] },
  { sourceTag: 'scope:dashboard', onlyDependOnLibsWithTags: ['scope:dashboard', 'scope:shared'] },
  { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
  // ...and by layer.
  // Test helpers and dev tools (type:testing) are for apps' specs and e2e suites only.
  {
    sourceTag: 'type:app',
    onlyDependOnLibsWithTags: [
      'type:feature',
      'type:data-access',
      'type:ui',
      'type:util',
      'type:contracts',
      'type:testing',
    ],
  },
  { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:contracts', 'type:util', 'type:testing'] },
  // Developer tools run from npm scripts (tools/bench, tools/db): the libs and the test helpers, never an
  // app; nothing imports them.
  {
    sourceTag: 'type:tool',
    onlyDependOnLibsWithTags: ['type:feature', 'type:data-access', 'type:util', 'type:contracts', 'type:testing'],
  },
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:testing', 'type:util', 'type:contracts'] },
  {
    sourceTag: 'type:feature',
    onlyDependOnLibsWithTags: ['type:feature', 'type:data-access', 'type:ui', 'type:util', 'type:contracts'],
  },
  {
    sourceTag: 'type:data-access',
    onlyDependOnLibsWithTags: ['type:data-access', 'type:util', 'type:contracts'],
  },
  { sourceTag: 'type:ui', onlyDependOnLibsWithTags: ['type:ui', 'type:util', 'type:contracts'] },
  { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util', 'type:contracts'] },
  // Shared rules (libs/shared/*) run in the server and in the browser: shared utils and
  // contracts only, no npm package (Node built-ins are refused by the lib's own lint config).
  {
    allSourceTags: ['scope:shared', 'type:util'],
    onlyDependOnLibsWithTags: ['type:util', 'type:contracts'],
    bannedExternalImports: ['*'],
  },
  // Contracts are types only: they import nothing at runtime.
  { sourceTag: 'type:contracts', onlyDependOnLibsWithTags: [], bannedExternalImports: ['*'] },
];

/** Specs may also use the test helpers (type:testing); production code never. */
const SPEC_CONSTRAINTS = DEP_CONSTRAINTS.map((constraint) =>
  constraint.onlyDependOnLibsWithTags?.length && !constraint.onlyDependOnLibsWithTags.includes('type:testing')
    ? { ...constraint, onlyDependOnLibsWithTags: [...constraint.onlyDependOnLibsWithTags, 'type:testing'] }
    : constraint,
);

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  ...nx.configs['flat/javascript'],
  {
    ignores: ['**/dist', '**/out-tsc', '**/coverage', '**/.angular'],
  },
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.js', '**/*.jsx'],
    rules: {
      '@nx/enforce-module-boundaries': ['error', { ...BOUNDARIES, depConstraints: DEP_CONSTRAINTS }],
    },
  },
  {
    // Specs may also use the test helpers (type:testing: fake upstreams, test databases).
    files: ['**/*.spec.ts'],
    rules: {
      '@nx/enforce-module-boundaries': ['error', { ...BOUNDARIES, depConstraints: SPEC_CONSTRAINTS }],
    },
  },
  {
    // Entity classes stay inside their domain: another domain reaches the data through the owning
    // module's exported service. A domain's `@arrbiter/server/<domain>/entities` entry point is for the
    // DataSource's entity list (`libs/server/schema/src/lib/schema-entities.ts`, which migrations are
    // checked against), for other entity files (relations) and for specs and test helpers.
    // (Patterns without a root: a project's own eslint.config.mjs, run in its folder, reuses this one.)
    files: ['**/*.ts'],
    ignores: ['**/*.spec.ts', '**/src/testing/**', '**/src/lib/entities/*.entity.ts', '**/src/lib/schema-entities.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['@arrbiter/server/*/entities'],
              message:
                'Entity classes stay inside their domain: use the owning module’s exported service and its row types.',
            },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.ts'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
];
