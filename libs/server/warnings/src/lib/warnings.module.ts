import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '@arrbiter/server/catalog';
import { KnownClientsModule } from '@arrbiter/server/known-clients';
import { ProxiesModule } from '@arrbiter/server/proxies';
import { AccessWarningEntity } from './entities/access-warning.entity';
import { WarningRecorder } from './warning-recorder';
import { WarningResolver } from './warning-resolver';
import { WarningRetention } from './warning-retention';
import { WarningsController } from './warnings.controller';
import { WarningsService } from './warnings.service';

@Module({
  imports: [ProxiesModule, KnownClientsModule, CatalogModule, TypeOrmModule.forFeature([AccessWarningEntity])],
  controllers: [WarningsController],
  providers: [WarningsService, WarningRecorder, WarningRetention, WarningResolver],
  exports: [WarningRecorder, WarningsService],
})
export class WarningsModule {}
