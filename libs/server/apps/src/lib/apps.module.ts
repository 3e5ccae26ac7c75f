import { Module } from '@nestjs/common';
import { TemplatesModule } from '@arrbiter/server/templates';
import { AppsController } from './apps.controller';
import { AppsService } from './apps.service';

/** Apps. Needs an `AppProxyCounts` provider, which the proxies module makes available (globally). */
@Module({ imports: [TemplatesModule], controllers: [AppsController], providers: [AppsService], exports: [AppsService] })
export class AppsModule {}
