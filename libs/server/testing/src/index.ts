export * from './lib/test-database';
export * from './lib/git-http-server';
