export * from './lib/all-exceptions.filter';
export * from './lib/database-errors';
export * from './lib/json-body.guard';
export * from './lib/logger-options';
export * from './lib/retry-after.exception';
export * from './lib/pagination';
export * from './lib/read-limited';
export * from './lib/log-output';
