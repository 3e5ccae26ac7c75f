export * from './lib/schema-entities';
