import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppsModule } from '@arrbiter/server/apps';
import { AppConfig, Clock } from '@arrbiter/server/config';
import { ProxiesModule } from '@arrbiter/server/proxies';
import { ServicesModule } from '@arrbiter/server/services';
import { UnauthorizedUsageEntity } from './entities/unauthorized-usage.entity';
import { UsageHourEntity } from './entities/usage-hour.entity';
import { UsageRouteEntity } from './entities/usage-route.entity';
import { UnauthorizedCounter } from './unauthorized-counter';
import { UsageCounter } from './usage-counter';
import { UsageController } from './usage.controller';
import { UsageRecorder } from './usage-recorder';
import { UsageRetention } from './usage-retention';
import { UsageService } from './usage.service';

/**
 * Usage of the proxy route: the in-memory `UsageCounter` the gateway feeds (`null` when
 * `USAGE_COUNTING=false`), its write-behind, the retention purge and the admin endpoints.
 */
@Module({
  imports: [
    AppsModule,
    ProxiesModule,
    ServicesModule,
    TypeOrmModule.forFeature([UsageHourEntity, UsageRouteEntity, UnauthorizedUsageEntity]),
  ],
  controllers: [UsageController],
  providers: [
    {
      provide: UsageCounter,
      useFactory: (config: AppConfig, clock: Clock) => (config.usageCounting ? new UsageCounter(clock) : null),
      inject: [AppConfig, Clock],
    },
    {
      provide: UnauthorizedCounter,
      useFactory: (config: AppConfig, clock: Clock) => (config.usageCounting ? new UnauthorizedCounter(clock) : null),
      inject: [AppConfig, Clock],
    },
    UsageRecorder,
    UsageRetention,
    UsageService,
  ],
  exports: [UsageCounter, UnauthorizedCounter, UsageRecorder, UsageService],
})
export class UsageModule {}
