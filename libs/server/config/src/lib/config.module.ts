import { DynamicModule, Global, Module } from '@nestjs/common';
import { AppConfig } from './app-config';
import { Clock } from './clock';
import { TrustedProxies } from './trusted-proxies';

/** Provides the validated `AppConfig` to every module; the config is loaded once, before Nest starts. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot(config: AppConfig, clock: Clock = new Clock()): DynamicModule {
    return {
      module: ConfigModule,
      providers: [
        { provide: AppConfig, useValue: config },
        { provide: Clock, useValue: clock },
        { provide: TrustedProxies, useValue: new TrustedProxies(config.trustProxy) },
      ],
      exports: [AppConfig, Clock, TrustedProxies],
    };
  }
}
