import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, ParseUUIDPipe, Patch, Post } from '@nestjs/common';
import type { ServiceDto } from '@arrbiter/contracts';
import { CreateServiceDto, UpdateServiceDto } from './dto/create-service.dto';
import { ServicesService } from './services.service';

@Controller('api/admin/v1/services')
export class ServicesController {
  constructor(private readonly services: ServicesService) {}

  @Get()
  list(): Promise<ServiceDto[]> {
    return this.services.list();
  }

  @Post()
  create(@Body() dto: CreateServiceDto): Promise<ServiceDto> {
    return this.services.create(dto);
  }

  @Get(':id')
  get(@Param('id', ParseUUIDPipe) id: string): Promise<ServiceDto> {
    return this.services.get(id);
  }

  @Patch(':id')
  update(@Param('id', ParseUUIDPipe) id: string, @Body() dto: UpdateServiceDto): Promise<ServiceDto> {
    return this.services.update(id, dto);
  }

  @Delete(':id')
  @HttpCode(HttpStatus.NO_CONTENT)
  remove(@Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.services.remove(id);
  }
}
