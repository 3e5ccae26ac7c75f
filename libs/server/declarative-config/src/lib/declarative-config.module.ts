import { DynamicModule, Module } from '@nestjs/common';
import { AppsModule } from '@arrbiter/server/apps';
import { KnownClientsModule } from '@arrbiter/server/known-clients';
import { ProxiesModule } from '@arrbiter/server/proxies';
import { ServicesModule } from '@arrbiter/server/services';
import { TemplateSyncModule } from '@arrbiter/server/template-sync';
import { TemplatesModule } from '@arrbiter/server/templates';
import { ConfigController } from './config.controller';
import { ConfigExportService } from './config-export.service';
import { ConfigFileLoader } from './config-file.loader';
import { ConfigImportService } from './config-import.service';
import { DeclarativeConfigService } from './declarative-config.service';
import { AppsPlanner } from './import/apps.planner';
import { ProxiesPlanner } from './import/proxies.planner';
import { ServicesPlanner } from './import/services.planner';
import { SettingsPlanner } from './import/settings.planner';
import { TemplatesPlanner } from './import/templates.planner';
import { SETTINGS_SECTION_TYPES, SETTINGS_SECTIONS, SettingsSection } from './settings-sections';

/**
 * Declarative configuration: export and import of one document (admin API and commands). It owns no
 * table: it reads and writes every domain through the owning module's exported service.
 */
@Module({
  imports: [ServicesModule, TemplatesModule, AppsModule, ProxiesModule, TemplateSyncModule, KnownClientsModule],
  controllers: [ConfigController],
  providers: [
    ...SETTINGS_SECTION_TYPES,
    {
      provide: SETTINGS_SECTIONS,
      useFactory: (...sections: SettingsSection[]) => sections,
      inject: [...SETTINGS_SECTION_TYPES],
    },
    ConfigExportService,
    SettingsPlanner,
    ServicesPlanner,
    TemplatesPlanner,
    AppsPlanner,
    ProxiesPlanner,
    ConfigImportService,
    DeclarativeConfigService,
  ],
  exports: [DeclarativeConfigService],
})
export class DeclarativeConfigModule {
  /** The server's: also applies `CONFIG_FILE` at start-up (the commands never do). */
  static withConfigFile(): DynamicModule {
    return { module: DeclarativeConfigModule, providers: [ConfigFileLoader] };
  }
}
