export * from './lib/known-client';
