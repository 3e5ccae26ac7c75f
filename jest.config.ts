import type { Config } from 'jest';
import { getJestProjectsAsync } from '@nx/jest';

export default async (): Promise<Config> => ({
  projects: await getJestProjectsAsync(),
  reporters: ['default', '<rootDir>/tools/jest/summary-reporter.cjs'],
  // Integration and end-to-end suites start whole servers and databases.
  testTimeout: 120_000,
  // A worker runs suite after suite, and what each leaves behind (compiled modules, Nest apps' caches)
  // adds up: one reached V8's 4 GB heap limit after ~70 suites and crashed (2026-11-24). A worker
  // whose memory passes this after a suite is replaced by a fresh one.
  workerIdleMemoryLimit: '1.5GB',
});
