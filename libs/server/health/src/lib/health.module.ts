import { Module } from '@nestjs/common';
import { GatewayModule } from '@arrbiter/server/gateway';
import { HealthController } from './health.controller';
import { HealthService } from './health.service';

@Module({ imports: [GatewayModule], controllers: [HealthController], providers: [HealthService] })
export class HealthModule {}
