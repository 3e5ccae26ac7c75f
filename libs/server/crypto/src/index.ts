export * from './lib/secret-box';
