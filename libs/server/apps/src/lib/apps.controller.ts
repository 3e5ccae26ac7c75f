import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Param,
  ParseUUIDPipe,
  Patch,
  Post,
  Query,
} from '@nestjs/common';
import type { AppDto, Page } from '@arrbiter/contracts';
import { AppsService } from './apps.service';
import { CreateAppDto, UpdateAppDto } from './dto/create-app.dto';
import { ListAppsDto } from './dto/list-apps.dto';
import { AdminPrincipal, CurrentAdmin, EditAccess, ReadAccess } from '@arrbiter/server/access';

@Controller('api/admin/v1/apps')
export class AppsController {
  constructor(private readonly apps: AppsService) {}

  /** A page of apps by name: `?limit=&cursor=&q=&templateId=&state=`. */
  @ReadAccess()
  @Get()
  list(@Query() query: ListAppsDto): Promise<Page<AppDto>> {
    return this.apps.list(query);
  }

  @EditAccess()
  @Post()
  create(@Body() dto: CreateAppDto, @CurrentAdmin() admin: AdminPrincipal): Promise<AppDto> {
    return this.apps.create(dto, admin.actor);
  }

  @ReadAccess()
  @Get(':id')
  get(@Param('id', ParseUUIDPipe) id: string): Promise<AppDto> {
    return this.apps.get(id);
  }

  @EditAccess()
  @Patch(':id')
  update(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: UpdateAppDto,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<AppDto> {
    return this.apps.update(id, dto, admin.actor);
  }

  @EditAccess()
  @Delete(':id')
  @HttpCode(HttpStatus.NO_CONTENT)
  remove(@Param('id', ParseUUIDPipe) id: string, @CurrentAdmin() admin: AdminPrincipal): Promise<void> {
    return this.apps.remove(id, admin.actor);
  }
}
