import { Controller, Get, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import type { ProxyUsageResponse, UnauthorizedCallsResponse, UsageOverviewResponse } from '@arrbiter/contracts';
import { ReadAccess } from '@arrbiter/server/access';
import { UnauthorizedQueryDto, UsageRangeDto } from './dto/usage-range.dto';
import { UsageService } from './usage.service';

@Controller('api/admin/v1')
export class UsageController {
  constructor(private readonly usage: UsageService) {}

  /** One proxy's calls, hour by hour, and per method and route. */
  @ReadAccess()
  @Get('proxies/:id/usage')
  ofProxy(@Param('id', ParseUUIDPipe) id: string, @Query() query: UsageRangeDto): Promise<ProxyUsageResponse> {
    return this.usage.ofProxy(id, this.usage.range(query));
  }

  /** Every proxy's calls together, hour by hour, with totals per app and per service. */
  @ReadAccess()
  @Get('usage')
  overview(@Query() query: UsageRangeDto): Promise<UsageOverviewResponse> {
    return this.usage.overview(this.usage.range(query));
  }

  /** Calls refused with 401 (a wrong, inactive or missing key), per app and "unknown app". */
  @ReadAccess()
  @Get('usage/unauthorized')
  unauthorized(@Query() query: UnauthorizedQueryDto): Promise<UnauthorizedCallsResponse> {
    return this.usage.unauthorized(this.usage.range(query), query.appId);
  }
}
