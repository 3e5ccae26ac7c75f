export * from './lib/entities/access-warning.entity';
export * from './lib/warning-recorder';
export * from './lib/warnings.module';
export * from './lib/warnings.service';
