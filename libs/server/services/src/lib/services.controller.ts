import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, ParseUUIDPipe, Patch, Post } from '@nestjs/common';
import type { ServiceDto, ServiceReachabilityDto } from '@arrbiter/contracts';
import { CreateServiceDto, UpdateServiceDto } from './dto/create-service.dto';
import { ServicesService } from './services.service';
import { AdminPrincipal, CurrentAdmin, EditAccess, ReadAccess } from '@arrbiter/server/access';

@Controller('api/admin/v1/services')
export class ServicesController {
  constructor(private readonly services: ServicesService) {}

  @ReadAccess()
  @Get()
  list(): Promise<ServiceDto[]> {
    return this.services.list();
  }

  @EditAccess()
  @Post()
  create(@Body() dto: CreateServiceDto, @CurrentAdmin() admin: AdminPrincipal): Promise<ServiceDto> {
    return this.services.create(dto, admin.actor);
  }

  @ReadAccess()
  @Get(':id')
  get(@Param('id', ParseUUIDPipe) id: string): Promise<ServiceDto> {
    return this.services.get(id);
  }

  @EditAccess()
  @Patch(':id')
  update(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: UpdateServiceDto,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<ServiceDto> {
    return this.services.update(id, dto, admin.actor);
  }

  @EditAccess()
  @Delete(':id')
  @HttpCode(HttpStatus.NO_CONTENT)
  remove(@Param('id', ParseUUIDPipe) id: string, @CurrentAdmin() admin: AdminPrincipal): Promise<void> {
    return this.services.remove(id, admin.actor);
  }

  @ReadAccess()
  @Get(':id/ping')
  ping(@Param('id', ParseUUIDPipe) id: string): Promise<ServiceReachabilityDto> {
    return this.services.ping(id);
  }
}
