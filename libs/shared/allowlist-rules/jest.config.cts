const preset = require('../../../jest.preset.js');

module.exports = {
  ...preset,
  displayName: 'shared-allowlist-rules',
  // Plain TypeScript shared by the server and the browser: no DOM, no Node built-ins needed.
  testEnvironment: 'node',
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }],
  },
  coverageDirectory: '../../../coverage/libs/shared/allowlist-rules',
};
