const preset = require('../../jest.server-preset.js');

module.exports = {
  ...preset,
  displayName: 'boundaries',
  transform: {
    ...preset.transform,
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }],
  },
};
