import { Module } from '@nestjs/common';
import { AppsModule } from '@arrbiter/server/apps';
import { ProxiesController } from './proxies.controller';
import { ProxiesService } from './proxies.service';

@Module({
  imports: [AppsModule],
  controllers: [ProxiesController],
  providers: [ProxiesService],
  exports: [ProxiesService],
})
export class ProxiesModule {}
