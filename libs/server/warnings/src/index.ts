export * from './lib/unknown-path-shape';
export * from './lib/warning-recorder';
export * from './lib/warning-resolver';
export * from './lib/warning-retention';
export * from './lib/warnings.module';
export * from './lib/warnings.service';
