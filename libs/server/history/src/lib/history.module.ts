import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { ChangesController } from './changes.controller';
import { ChangesService } from './changes.service';
import { ChangeEntity } from './entities/change.entity';
import { RevisionEntity } from './entities/revision.entity';
import { RevisionsService } from './revisions.service';

/** Proxies' revisions and the audit trail of admin writes (recent changes); every domain records into it. */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([ChangeEntity, RevisionEntity])],
  controllers: [ChangesController],
  providers: [ChangesService, RevisionsService],
  exports: [ChangesService, RevisionsService],
})
export class HistoryModule {}
