export * from './lib/body-memory';
export * from './lib/proxy-url';
export * from './lib/gateway.module';
export * from './lib/proxy-registry';
export * from './lib/proxy-gateway';
export { closesAfterAnswer } from './lib/proxy-problem';
