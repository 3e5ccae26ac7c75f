const preset = require('../../../jest.server-preset.js');

module.exports = {
  ...preset,
  displayName: 'server-known-clients',
  transform: {
    ...preset.transform,
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }],
  },
  coverageDirectory: '../../../coverage/libs/server/known-clients',
};
