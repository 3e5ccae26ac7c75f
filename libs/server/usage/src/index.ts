export * from './lib/unauthorized-counter';
export * from './lib/usage-counter';
export * from './lib/usage-recorder';
export * from './lib/usage-retention';
export * from './lib/usage.module';
export * from './lib/usage.service';
