import type { Config } from 'jest';
import { getJestProjectsAsync } from '@nx/jest';

export default async (): Promise<Config> => ({
  projects: await getJestProjectsAsync(),
  reporters: ['default', '<rootDir>/tools/jest/summary-reporter.cjs'],
  // Integration and end-to-end suites start whole servers and databases.
  testTimeout: 120_000,
});
