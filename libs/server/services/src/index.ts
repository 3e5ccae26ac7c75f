export * from './lib/base-url';
export * from './lib/servarr-client';
export * from './lib/service-reachability';
export * from './lib/service-users';
export * from './lib/services.module';
export * from './lib/services.service';
export * from './lib/dto/create-service.dto';
