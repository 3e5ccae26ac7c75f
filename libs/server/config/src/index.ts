export * from './lib/app-config';
export * from './lib/config-error';
export * from './lib/config.module';
export * from './lib/load-config';
export * from './lib/clock';
export * from './lib/trusted-proxies';
export * from './lib/document-file';
export * from './lib/staff-auth-config';
