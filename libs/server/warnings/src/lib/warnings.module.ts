import { Module } from '@nestjs/common';
import { ProxiesModule } from '@arrbiter/server/proxies';
import { WarningRecorder } from './warning-recorder';
import { WarningsController } from './warnings.controller';
import { WarningsService } from './warnings.service';

@Module({
  imports: [ProxiesModule],
  controllers: [WarningsController],
  providers: [WarningsService, WarningRecorder],
  exports: [WarningRecorder, WarningsService],
})
export class WarningsModule {}
