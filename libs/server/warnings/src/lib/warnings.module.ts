import { Module } from '@nestjs/common';
import { WarningRecorder } from './warning-recorder';
import { WarningsController } from './warnings.controller';
import { WarningsService } from './warnings.service';

@Module({
  controllers: [WarningsController],
  providers: [WarningsService, WarningRecorder],
  exports: [WarningRecorder, WarningsService],
})
export class WarningsModule {}
