export * from './lib/dto/proxy.dto';
export * from './lib/endpoints';
export * from './lib/learning-deadlines';
export * from './lib/proxies.module';
export * from './lib/proxies.service';
export * from './lib/proxy-allowlist.service';
export * from './lib/proxy-defaults.service';
export * from './lib/proxy-rate-limit';
