export * from './lib/health.module';
