import { Controller, Get, Header, NotFoundException, Param, ParseUUIDPipe } from '@nestjs/common';
import type { RecentCallsResponse } from '@arrbiter/contracts';
import { ReadAccess } from '@arrbiter/server/access';
import { RecentCalls } from './recent-calls';

/**
 * The gateway's one admin route: a proxy's first calls, live (`RecentCalls`). Here rather than in the
 * proxies lib, which the gateway depends on: the rings live in the proxy route's memory.
 */
@Controller('api/admin/v1')
export class RecentCallsController {
  constructor(private readonly recent: RecentCalls) {}

  /** Arms recording on every replica for 10 minutes and answers this replica's calls, newest first. */
  @ReadAccess()
  @Get('proxies/:id/recent-calls')
  @Header('Cache-Control', 'no-store')
  async list(@Param('id', ParseUUIDPipe) id: string): Promise<RecentCallsResponse> {
    const view = await this.recent.view(id);
    if (view === undefined) throw new NotFoundException('No such proxy');
    return view;
  }
}
