export * from './lib/families';
export * from './lib/metrics';
export * from './lib/metrics-server';
export * from './lib/metrics.module';
