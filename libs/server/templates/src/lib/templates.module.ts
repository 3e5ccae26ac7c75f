import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { TemplateEntity } from './entities/template.entity';
import { TemplatesController } from './templates.controller';
import { TemplatesService } from './templates.service';

/**
 * Templates: named grant blocks per service type that apps inherit. Needs a `TemplateAppCounts`
 * provider, which the apps module makes available (globally), and a `PendingTemplateChanges` provider,
 * which the template-sync module makes available (globally).
 */
@Module({
  imports: [TypeOrmModule.forFeature([TemplateEntity])],
  controllers: [TemplatesController],
  providers: [TemplatesService],
  exports: [TemplatesService],
})
export class TemplatesModule {}
