export * from './lib/auth';
export * from './lib/errors';
export * from './lib/health';
export * from './lib/admin';
export * from './lib/config';
export * from './lib/usage';
export * from './lib/notifications';
export * from './lib/known-clients';
