import { builtinModules } from 'node:module';
import baseConfig from '../../../eslint.config.mjs';

export default [
  ...baseConfig,
  {
    // Runs in the server and in the browser: no Node built-ins (npm packages are banned by the boundaries).
    files: ['**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: builtinModules,
          patterns: [{ group: ['node:*'], message: 'No Node built-ins: this lib also runs in the browser.' }],
        },
      ],
    },
  },
];
