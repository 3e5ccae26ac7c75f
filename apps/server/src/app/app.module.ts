import { DynamicModule, Module, ValidationPipe } from '@nestjs/common';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { ApiDocsModule } from '@arrbiter/server/api-docs';
import { AppsModule } from '@arrbiter/server/apps';
import { AuthenticationGuard, AuthModule, OriginGuard, RolesGuard } from '@arrbiter/server/auth';
import { CatalogModule } from '@arrbiter/server/catalog';
import { AppConfig, Clock, ConfigModule } from '@arrbiter/server/config';
import { CryptoModule } from '@arrbiter/server/crypto';
import { DeclarativeConfigModule } from '@arrbiter/server/declarative-config';
import { DatabaseModule } from '@arrbiter/server/database';
import { GatewayModule } from '@arrbiter/server/gateway';
import { HistoryModule } from '@arrbiter/server/history';
import { KnownClientsModule } from '@arrbiter/server/known-clients';
import { NotificationsModule } from '@arrbiter/server/notifications';
import { TemplateSyncModule } from '@arrbiter/server/template-sync';
import { TemplatesModule } from '@arrbiter/server/templates';
import { HealthModule } from '@arrbiter/server/health';
import { MetricsModule, packageVersion } from '@arrbiter/server/metrics';
import {
  AllExceptionsFilter,
  buildLoggerOptions,
  createLogOutput,
  JsonBodyGuard,
  LogOutputModule,
} from '@arrbiter/server/http';
import { ProxiesModule } from '@arrbiter/server/proxies';
import { ServicesModule } from '@arrbiter/server/services';
import { UsageModule } from '@arrbiter/server/usage';
import { WarningsModule } from '@arrbiter/server/warnings';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import { ENTITIES } from './entities';
import { AdminRequest } from '@arrbiter/server/access';

export interface AppModuleOptions {
  /** Where log lines go (stdout by default). */
  logDestination?: DestinationStream;
  /** The server's clock (tests pass a `TestClock` to move time). */
  clock?: Clock;
}

/**
 * How much JSON a request may send, decided once the Origin and session guards let it in: a few KB on
 * public routes (sign-in), 100 KB for an administrator, 10 MB for an administrator's OpenAPI upload
 * or configuration document (`MAX_DOCUMENT_BYTES`, which YAML documents get too).
 */
function jsonBodyLimit(request: AdminRequest): string {
  // The authentication guard names the administrator; on a public route there is none.
  if (!request.admin) return '4kb';
  // Express routes paths in any case: so does this.
  const path = request.path.toLowerCase();
  return path.startsWith('/api/admin/v1/openapi/') || path === '/api/admin/v1/config/import' ? '10mb' : '100kb';
}

/** Wiring only: configuration, database, logging, the global pipeline and the domain modules. */
@Module({})
export class AppModule {
  static forRoot(config: AppConfig, options: AppModuleOptions = {}): DynamicModule {
    // One destination and level for pino and for the lines written without it (the proxy's access line).
    const logOutput = createLogOutput({ level: config.logLevel, destination: options.logDestination });
    return {
      module: AppModule,
      imports: [
        ConfigModule.forRoot(config, options.clock),
        LoggerModule.forRoot(buildLoggerOptions(logOutput)),
        LogOutputModule.forRoot(logOutput),
        // Off (nothing provided) unless METRICS_PORT is set.
        MetricsModule.forRoot(config, packageVersion(__dirname)),
        DatabaseModule.forRoot({ entities: ENTITIES }),
        CryptoModule,
        HistoryModule,
        NotificationsModule,
        GatewayModule,
        AuthModule,
        HealthModule,
        CatalogModule,
        ServicesModule,
        AppsModule,
        ProxiesModule,
        WarningsModule,
        KnownClientsModule,
        UsageModule,
        TemplatesModule,
        TemplateSyncModule,
        DeclarativeConfigModule.withConfigFile(),
        ApiDocsModule,
      ],
      providers: [
        {
          provide: APP_PIPE,
          useValue: new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }),
        },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        // Order matters: a forged write is refused before any credential lookup, and no body is read
        // before the caller is known and their role allows the route.
        { provide: APP_GUARD, useExisting: OriginGuard },
        { provide: APP_GUARD, useExisting: AuthenticationGuard },
        { provide: APP_GUARD, useExisting: RolesGuard },
        { provide: APP_GUARD, useValue: new JsonBodyGuard(jsonBodyLimit) },
      ],
    };
  }
}
