import nx from '@nx/eslint-plugin';

/** ESLint for Angular projects (the dashboard and its libraries): one `arb-` selector prefix everywhere. */
export default [
  ...nx.configs['flat/angular'],
  ...nx.configs['flat/angular-template'],
  {
    files: ['**/*.ts'],
    rules: {
      '@angular-eslint/directive-selector': ['error', { type: 'attribute', prefix: 'arb', style: 'camelCase' }],
      '@angular-eslint/component-selector': ['error', { type: 'element', prefix: 'arb', style: 'kebab-case' }],
    },
  },
];
