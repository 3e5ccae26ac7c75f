const preset = require('../../../jest.server-preset.js');

module.exports = {
  ...preset,
  displayName: 'server-schema',
  transform: {
    ...preset.transform,
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }],
  },
  coverageDirectory: '../../../coverage/libs/server/schema',
};
