import { Global, Module } from '@nestjs/common';
import { ChangesController } from './changes.controller';
import { ChangesService } from './changes.service';
import { RevisionsService } from './revisions.service';

/** Proxies' revisions and the audit trail of admin writes (recent changes); every domain records into it. */
@Global()
@Module({
  controllers: [ChangesController],
  providers: [ChangesService, RevisionsService],
  exports: [ChangesService, RevisionsService],
})
export class HistoryModule {}
