export * from './lib/entities/proxy.entity';
export * from './lib/proxies.module';
export * from './lib/proxies.service';
