import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TemplatesModule } from '@arrbiter/server/templates';
import { AppsController } from './apps.controller';
import { AppsService } from './apps.service';
import { AppEntity } from './entities/app.entity';
import { TemplateAppCountsModule } from './template-app-counts.provider';

/**
 * Apps. Needs an `AppProxyCounts` provider, which the proxies module makes available (globally), and
 * provides `TemplateAppCounts` to the templates module (globally).
 */
@Module({
  imports: [TypeOrmModule.forFeature([AppEntity]), TemplatesModule, TemplateAppCountsModule],
  controllers: [AppsController],
  providers: [AppsService],
  exports: [AppsService],
})
export class AppsModule {}
