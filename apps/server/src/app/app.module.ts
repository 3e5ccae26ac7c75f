import { DynamicModule, Module, ValidationPipe } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { AuthModule, OriginGuard, SessionGuard } from '@arrbiter/server/auth';
import { AppConfig, ConfigModule } from '@arrbiter/server/config';
import { DatabaseModule } from '@arrbiter/server/database';
import { HealthModule } from '@arrbiter/server/health';
import { AllExceptionsFilter, buildLoggerOptions } from '@arrbiter/server/http';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { ENTITIES } from './entities';

export interface AppModuleOptions {
  /** Where log lines go (stdout by default). */
  logDestination?: DestinationStream;
}

/** Wiring only: configuration, database, logging, the global pipeline and the domain modules. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig, options: AppModuleOptions = {}): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config),
        LoggerModule.forRoot(buildLoggerOptions({ level: config.logLevel, destination: options.logDestination })),
        DatabaseModule.forRoot({ entities: ENTITIES }),
        AuthModule,
        HealthModule,
      ],
      providers: [
        {
          provide: APP_PIPE,
          useValue: new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }),
        },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        // Order matters: a forged write is refused before any session lookup.
        { provide: APP_GUARD, useExisting: OriginGuard },
        { provide: APP_GUARD, useExisting: SessionGuard },
      ],
    };
  }
}
