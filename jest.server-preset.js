// Shared jest settings of the server's projects (apps and libs that run the server or its database).
const nxPreset = require('@nx/jest/preset').default;
const { join } = require('node:path');

module.exports = {
  ...nxPreset,
  testEnvironment: 'node',
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'html'],
  transform: {
    // ESM-only or dynamic-import packages under node_modules (see the transformer).
    '/node_modules/.+\\.(c|m)?js$': join(__dirname, 'tools/jest/esm-interop-transformer.cjs'),
  },
  transformIgnorePatterns: [
    '/node_modules/(?!(@electric-sql|@nestjs/typeorm|http-proxy-middleware|httpxy|is-plain-obj|openid-client|oauth4webapi|jose)/)',
  ],
  testTimeout: 120_000,
  // The Reflect metadata API before any spec's first import, as main.ts loads it: a spec whose first
  // import is a DTO fails without it (class-transformer's @Type reads metadata when it is applied).
  setupFiles: ['reflect-metadata'],
  // The shared fixtures checked, then one initialised embedded PostgreSQL data directory that each suite
  // copies (see the files).
  globalSetup: join(__dirname, 'tools/jest/server-global-setup.cjs'),
};
