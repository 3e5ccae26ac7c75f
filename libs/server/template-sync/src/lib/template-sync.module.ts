import { Module } from '@nestjs/common';
import { TemplatesModule } from '@arrbiter/server/templates';
import { RepositorySettingsService } from './repository-settings.service';
import { TemplateSyncController } from './template-sync.controller';
import { TemplateSyncScheduler } from './template-sync.scheduler';
import { TemplateSyncService } from './template-sync.service';

/** The template repository: its settings, syncs (on request and on a schedule) and local templates. */
@Module({
  imports: [TemplatesModule],
  controllers: [TemplateSyncController],
  providers: [RepositorySettingsService, TemplateSyncService, TemplateSyncScheduler],
  exports: [TemplateSyncService],
})
export class TemplateSyncModule {}
