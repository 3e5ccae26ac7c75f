const preset = require('../../../jest.server-preset.js');

module.exports = {
  ...preset,
  displayName: 'server-gateway',
  transform: {
    ...preset.transform,
    '^.+\\.ts$': ['ts-jest', { tsconfig: '<rootDir>/tsconfig.spec.json' }],
  },
  // V8's gc function without NODE_OPTIONS=--expose-gc, for BodyMemory's specs (see the file).
  setupFiles: [...preset.setupFiles, '<rootDir>/../testing/jest/expose-gc.cjs'],
  coverageDirectory: '../../../coverage/libs/server/gateway',
};
