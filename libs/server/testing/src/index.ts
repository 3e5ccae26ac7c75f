export * from './lib/test-database';
export * from './lib/git-http-server';
export * from './lib/prometheus-text';
export * from './lib/eventually';
export * from './lib/usage-totals';
export * from './lib/webhook-receiver';
export * from './lib/seed-proxy';
