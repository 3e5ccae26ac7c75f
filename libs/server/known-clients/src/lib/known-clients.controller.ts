import { Controller, Get, Param } from '@nestjs/common';
import type { KnownClientDto, KnownClientSummaryDto } from '@arrbiter/contracts';
import { ReadAccess } from '@arrbiter/server/access';
import { KnownClientsService } from './known-clients.service';

/** The catalogue of known clients: what each integration calls, read from its own source. */
@Controller('api/admin/v1/known-clients')
export class KnownClientsController {
  constructor(private readonly known: KnownClientsService) {}

  @ReadAccess()
  @Get()
  list(): KnownClientSummaryDto[] {
    return this.known.list();
  }

  /** The client's calls per service type, each with the route the server's descriptions resolve it to. */
  @ReadAccess()
  @Get(':id')
  get(@Param('id') id: string): Promise<KnownClientDto> {
    return this.known.get(id);
  }
}
