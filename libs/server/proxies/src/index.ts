export * from './lib/endpoints';
export * from './lib/entities/proxy.entity';
export * from './lib/learning-deadlines';
export * from './lib/proxies.module';
export * from './lib/proxies.service';
