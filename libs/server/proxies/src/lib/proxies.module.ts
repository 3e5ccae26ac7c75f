import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppsModule } from '@arrbiter/server/apps';
import { CatalogModule } from '@arrbiter/server/catalog';
import { ServicesModule } from '@arrbiter/server/services';
import { TemplatesModule } from '@arrbiter/server/templates';
import { AppCloneController } from './app-clone.controller';
import { AppCloneService } from './app-clone.service';
import { AppProxyCountsModule } from './app-proxy-counts.provider';
import { ProxyDefaultsEntity } from './entities/proxy-defaults.entity';
import { ProxyEntity } from './entities/proxy.entity';
import { LearningDeadlines } from './learning-deadlines';
import { PreviousKeyUsage } from './previous-key-usage';
import { ProxiesController } from './proxies.controller';
import { ProxiesService } from './proxies.service';
import { ProxyAllowlistService } from './proxy-allowlist.service';
import { ProxyDefaultsService } from './proxy-defaults.service';
import { ProxyLearningService } from './proxy-learning.service';
import { ProxyRevisionsService } from './proxy-revisions.service';
import { ProxyStore } from './proxy-store';
import { ServiceUsersModule } from './service-users.provider';

@Module({
  imports: [
    AppsModule,
    TemplatesModule,
    CatalogModule,
    ServicesModule,
    AppProxyCountsModule,
    ServiceUsersModule,
    TypeOrmModule.forFeature([ProxyEntity, ProxyDefaultsEntity]),
  ],
  controllers: [ProxiesController, AppCloneController],
  providers: [
    AppCloneService,
    ProxyStore,
    ProxiesService,
    ProxyAllowlistService,
    ProxyRevisionsService,
    ProxyLearningService,
    ProxyDefaultsService,
    LearningDeadlines,
    PreviousKeyUsage,
  ],
  exports: [ProxiesService, ProxyAllowlistService, ProxyDefaultsService, LearningDeadlines, PreviousKeyUsage],
})
export class ProxiesModule {}
