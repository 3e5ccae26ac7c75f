const preset = require('../../../jest.server-preset.js');

module.exports = {
  ...preset,
  displayName: 'server-template-sync',
  transform: {
    ...preset.transform,
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }],
  },
  coverageDirectory: '../../../coverage/libs/server/template-sync',
};
