const preset = require('../../jest.server-preset.js');

module.exports = {
  ...preset,
  displayName: 'server',
  transform: {
    ...preset.transform,
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }],
  },
  coverageDirectory: '../../coverage/apps/server',
};
