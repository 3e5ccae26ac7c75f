export * from './lib/warning-recorder';
export * from './lib/warnings.module';
export * from './lib/warnings.service';
