import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppsModule } from '@arrbiter/server/apps';
import { ProxiesModule } from '@arrbiter/server/proxies';
import { ServicesModule } from '@arrbiter/server/services';
import { TemplatesModule } from '@arrbiter/server/templates';
import { SettingEntity } from './entities/setting.entity';
import { RepositorySettingsService } from './repository-settings.service';
import { TemplateSyncController } from './template-sync.controller';
import { TemplateSyncScheduler } from './template-sync.scheduler';
import { TemplateSyncService } from './template-sync.service';

/** The template repository: its settings, syncs (on request and on a schedule) and local templates. */
@Module({
  imports: [TemplatesModule, AppsModule, ProxiesModule, ServicesModule, TypeOrmModule.forFeature([SettingEntity])],
  controllers: [TemplateSyncController],
  providers: [RepositorySettingsService, TemplateSyncService, TemplateSyncScheduler],
  exports: [TemplateSyncService, RepositorySettingsService],
})
export class TemplateSyncModule {}
