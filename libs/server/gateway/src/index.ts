export * from './lib/body-memory';
export * from './lib/canonical-path';
export * from './lib/gateway.module';
export * from './lib/proxy-registry';
export * from './lib/proxy-gateway';
