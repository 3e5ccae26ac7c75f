export * from './lib/call-paths';
export * from './lib/catalogue';
export * from './lib/client-fit.service';
export * from './lib/connect.service';
export * from './lib/fit';
export * from './lib/known-client';
export * from './lib/known-clients.module';
export * from './lib/known-clients.service';
