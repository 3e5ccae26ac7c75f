import { Module } from '@nestjs/common';
import { AppsModule } from '@arrbiter/server/apps';
import { CatalogModule } from '@arrbiter/server/catalog';
import { TemplatesModule } from '@arrbiter/server/templates';
import { LearningDeadlines } from './learning-deadlines';
import { ProxiesController } from './proxies.controller';
import { ProxiesService } from './proxies.service';

@Module({
  imports: [AppsModule, TemplatesModule, CatalogModule],
  controllers: [ProxiesController],
  providers: [ProxiesService, LearningDeadlines],
  exports: [ProxiesService, LearningDeadlines],
})
export class ProxiesModule {}
