const preset = require('../../jest.server-preset.js');

module.exports = {
  ...preset,
  displayName: 'server-e2e',
  testMatch: ['<rootDir>/src/**/*.e2e-spec.ts'],
  transform: {
    ...preset.transform,
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }],
  },
};
