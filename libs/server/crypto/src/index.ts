export * from './lib/secret-box';
export * from './lib/crypto.module';
