import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AppsModule } from '@arrbiter/server/apps';
import { ProxiesModule } from '@arrbiter/server/proxies';
import { ServicesModule } from '@arrbiter/server/services';
import { PendingTemplateChanges, TemplatesModule } from '@arrbiter/server/templates';
import { PendingTemplateChangeEntity } from './entities/pending-template-change.entity';
import { SettingEntity } from './entities/setting.entity';
import { PendingTemplateChangesService } from './pending-template-changes.service';
import { RepositorySettingsService } from './repository-settings.service';
import { TemplateSyncController } from './template-sync.controller';
import { TemplateSyncScheduler } from './template-sync.scheduler';
import { TemplateSyncService } from './template-sync.service';
import { TemplateImpact } from './template-impact';

/**
 * The template repository: its settings, syncs (on request and on a schedule), the widenings syncs hold
 * for review, and local templates. Provides `PendingTemplateChanges` to the templates module (globally:
 * it cannot import this one, which imports it).
 */
@Global()
@Module({
  imports: [
    TemplatesModule,
    AppsModule,
    ProxiesModule,
    ServicesModule,
    TypeOrmModule.forFeature([SettingEntity, PendingTemplateChangeEntity]),
  ],
  controllers: [TemplateSyncController],
  providers: [
    RepositorySettingsService,
    TemplateSyncService,
    TemplateSyncScheduler,
    TemplateImpact,
    PendingTemplateChangesService,
    { provide: PendingTemplateChanges, useExisting: PendingTemplateChangesService },
  ],
  exports: [TemplateSyncService, RepositorySettingsService, PendingTemplateChanges],
})
export class TemplateSyncModule {}
