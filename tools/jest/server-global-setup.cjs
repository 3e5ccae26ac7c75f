// Jest global set-up of the server's projects: the fixtures they read must be there, then the
// embedded database's template (see embedded-postgres-template.cjs).
const { existsSync } = require('node:fs');
const { join, resolve } = require('node:path');
const embeddedPostgresTemplate = require('./embedded-postgres-template.cjs');

/** The real OpenAPI descriptions and community templates, beside the repository, as CI places them. */
const FIXTURES = resolve(__dirname, '..', '..', '..', 'shared', 'fixtures');

module.exports = async function serverGlobalSetup() {
  const missing = ['openapi', 'template-repo'].filter((name) => !existsSync(join(FIXTURES, name)));
  if (missing.length > 0) {
    // Without them some 60 tests fail one by one with ENOENT; one clear line instead.
    throw new Error(
      `The test suite reads the shared fixtures; not found: ${missing.map((name) => join(FIXTURES, name)).join(', ')}. ` +
        'Clone the repository beside the shared directory (../shared/fixtures), as CI does.',
    );
  }
  await embeddedPostgresTemplate();
};
