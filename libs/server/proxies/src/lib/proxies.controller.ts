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
  Put,
} from '@nestjs/common';
import type { AllowlistResponse, ProxyConnectionDto, ProxyDto, RotateKeyResponse } from '@arrbiter/contracts';
import { CreateProxyDto, ProxyConfigDto, UpdateProxyDto } from './dto/proxy.dto';
import { ProxiesService } from './proxies.service';

@Controller('api/admin/v1')
export class ProxiesController {
  constructor(private readonly proxies: ProxiesService) {}

  @Get('apps/:appId/proxies')
  list(@Param('appId', ParseUUIDPipe) appId: string): Promise<ProxyDto[]> {
    return this.proxies.listForApp(appId);
  }

  @Post('apps/:appId/proxies')
  create(@Param('appId', ParseUUIDPipe) appId: string, @Body() dto: CreateProxyDto): Promise<ProxyConnectionDto> {
    return this.proxies.create(appId, dto);
  }

  @Get('proxies/:id')
  get(@Param('id', ParseUUIDPipe) id: string): Promise<ProxyConnectionDto> {
    return this.proxies.get(id);
  }

  @Patch('proxies/:id')
  update(@Param('id', ParseUUIDPipe) id: string, @Body() dto: UpdateProxyDto): Promise<ProxyDto> {
    return this.proxies.setActive(id, dto.active);
  }

  @Delete('proxies/:id')
  @HttpCode(HttpStatus.NO_CONTENT)
  remove(@Param('id', ParseUUIDPipe) id: string): Promise<void> {
    return this.proxies.remove(id);
  }

  @Post('proxies/:id/rotate-key')
  @HttpCode(HttpStatus.OK)
  rotateKey(@Param('id', ParseUUIDPipe) id: string): Promise<RotateKeyResponse> {
    return this.proxies.rotateKey(id);
  }

  @Put('proxies/:id/config')
  saveConfig(@Param('id', ParseUUIDPipe) id: string, @Body() dto: ProxyConfigDto): Promise<AllowlistResponse> {
    return this.proxies.saveConfig(id, dto);
  }

  @Get('proxies/:id/allowlist')
  allowlist(@Param('id', ParseUUIDPipe) id: string): Promise<AllowlistResponse> {
    return this.proxies.allowlist(id);
  }
}
