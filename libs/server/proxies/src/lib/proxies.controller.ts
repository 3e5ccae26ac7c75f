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
  Query,
  Req,
  UseInterceptors,
} from '@nestjs/common';
import type {
  AllowlistResponse,
  EndpointsResponse,
  Page,
  ProxyConfigSaveResponse,
  ProxyConnectionDto,
  ProxyDefaults,
  ProxyDetailsDto,
  ProxyDto,
  ProxyKeyResponse,
  RevisionDiffResponse,
  RevisionDto,
  RotateKeyResponse,
  UndoRevisionResponse,
} from '@arrbiter/contracts';
import { ExternalUrls } from '@arrbiter/server/config';
import { PageQueryDto } from '@arrbiter/server/http';
import type { Request } from 'express';
import {
  CreateProxyDto,
  EndpointsQueryDto,
  ProxyConfigDto,
  ProxyDefaultsDto,
  RotateKeyDto,
  StartLearningDto,
  UpdateProxyDto,
} from './dto/proxy.dto';
import { RawOverridesCheck } from './dto/raw-overrides.interceptor';
import { ProxiesService } from './proxies.service';
import { ProxyAllowlistService } from './proxy-allowlist.service';
import { ProxyDefaultsService } from './proxy-defaults.service';
import { ProxyLearningService } from './proxy-learning.service';
import { ProxyRevisionsService } from './proxy-revisions.service';
import { AdminPrincipal, CurrentAdmin, EditAccess, hasRole, OwnerAccess, ReadAccess } from '@arrbiter/server/access';

@Controller('api/admin/v1')
export class ProxiesController {
  constructor(
    private readonly proxies: ProxiesService,
    private readonly allowlists: ProxyAllowlistService,
    private readonly history: ProxyRevisionsService,
    private readonly learning: ProxyLearningService,
    private readonly defaults: ProxyDefaultsService,
    private readonly urls: ExternalUrls,
  ) {}

  @ReadAccess()
  @Get('settings/proxy-defaults')
  proxyDefaults(): Promise<ProxyDefaults> {
    return this.defaults.get();
  }

  @OwnerAccess()
  @Put('settings/proxy-defaults')
  saveProxyDefaults(@Body() dto: ProxyDefaultsDto, @CurrentAdmin() admin: AdminPrincipal): Promise<ProxyDefaults> {
    return this.defaults.put(dto, admin.actor);
  }

  @ReadAccess()
  @Get('apps/:appId/proxies')
  list(@Param('appId', ParseUUIDPipe) appId: string): Promise<ProxyDto[]> {
    return this.proxies.listForApp(appId);
  }

  @EditAccess()
  @Post('apps/:appId/proxies')
  create(
    @Param('appId', ParseUUIDPipe) appId: string,
    @Body() dto: CreateProxyDto,
    @CurrentAdmin() admin: AdminPrincipal,
    @Req() request: Request,
  ): Promise<ProxyConnectionDto> {
    return this.proxies.create(appId, dto, admin.actor, this.urls.urlOf(request));
  }

  /** Connection details; the key only for editors and owners (a viewer reads everything but secrets). */
  @ReadAccess()
  @Get('proxies/:id')
  get(
    @Param('id', ParseUUIDPipe) id: string,
    @CurrentAdmin() admin: AdminPrincipal,
    @Req() request: Request,
  ): Promise<ProxyDetailsDto> {
    return this.proxies.get(id, hasRole(admin.role, 'editor'), this.urls.urlOf(request));
  }

  /** Reveals the key: a secret, so not for viewers. */
  @EditAccess()
  @Get('proxies/:id/key')
  key(@Param('id', ParseUUIDPipe) id: string): Promise<ProxyKeyResponse> {
    return this.proxies.key(id);
  }

  @EditAccess()
  @Patch('proxies/:id')
  update(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: UpdateProxyDto,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<ProxyDto> {
    return this.proxies.setActive(id, dto.active, admin.actor);
  }

  @EditAccess()
  @Delete('proxies/:id')
  @HttpCode(HttpStatus.NO_CONTENT)
  remove(@Param('id', ParseUUIDPipe) id: string, @CurrentAdmin() admin: AdminPrincipal): Promise<void> {
    return this.proxies.remove(id, admin.actor);
  }

  @EditAccess()
  @Post('proxies/:id/rotate-key')
  @HttpCode(HttpStatus.OK)
  rotateKey(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: RotateKeyDto,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<RotateKeyResponse> {
    return this.proxies.rotateKey(id, dto.graceMinutes ?? 0, admin.actor);
  }

  /** Ends the previous key's grace period now; 404 when none is running. */
  @EditAccess()
  @Delete('proxies/:id/previous-key')
  @HttpCode(HttpStatus.NO_CONTENT)
  endGrace(@Param('id', ParseUUIDPipe) id: string, @CurrentAdmin() admin: AdminPrincipal): Promise<void> {
    return this.proxies.endGrace(id, admin.actor);
  }

  @EditAccess()
  @Put('proxies/:id/config')
  @UseInterceptors(RawOverridesCheck)
  saveConfig(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: ProxyConfigDto,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<ProxyConfigSaveResponse> {
    return this.allowlists.saveConfig(id, dto, admin.actor);
  }

  @ReadAccess()
  @Get('proxies/:id/allowlist')
  allowlist(@Param('id', ParseUUIDPipe) id: string): Promise<AllowlistResponse> {
    return this.allowlists.allowlist(id);
  }

  @ReadAccess()
  @Get('proxies/:id/endpoints')
  endpoints(@Param('id', ParseUUIDPipe) id: string, @Query() query: EndpointsQueryDto): Promise<EndpointsResponse> {
    return this.allowlists.endpoints(id, query);
  }

  @ReadAccess()
  @Get('proxies/:id/revisions')
  revisions(@Param('id', ParseUUIDPipe) id: string, @Query() query: PageQueryDto): Promise<Page<RevisionDto>> {
    return this.history.list(id, query);
  }

  @ReadAccess()
  @Get('proxies/:id/revisions/:revisionId/diff')
  revisionDiff(
    @Param('id', ParseUUIDPipe) id: string,
    @Param('revisionId', ParseUUIDPipe) revisionId: string,
  ): Promise<RevisionDiffResponse> {
    return this.history.diff(id, revisionId);
  }

  @EditAccess()
  @Post('proxies/:id/revisions/:revisionId/restore')
  @HttpCode(HttpStatus.OK)
  restore(
    @Param('id', ParseUUIDPipe) id: string,
    @Param('revisionId', ParseUUIDPipe) revisionId: string,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<RevisionDto> {
    return this.history.restore(id, revisionId, admin.actor);
  }

  /** Takes back the grants a revision added and gives back those it revoked (a new `undo` revision); 409 when they changed since. */
  @EditAccess()
  @Post('proxies/:id/revisions/:revisionId/undo')
  async undo(
    @Param('id', ParseUUIDPipe) id: string,
    @Param('revisionId', ParseUUIDPipe) revisionId: string,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<UndoRevisionResponse> {
    return { revision: await this.history.undo(id, revisionId, admin.actor) };
  }

  @EditAccess()
  @Post('proxies/:id/learning')
  @HttpCode(HttpStatus.OK)
  startLearning(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: StartLearningDto,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<ProxyDto> {
    return this.learning.start(id, new Date(dto.until), admin.actor);
  }

  @EditAccess()
  @Delete('proxies/:id/learning')
  stopLearning(@Param('id', ParseUUIDPipe) id: string, @CurrentAdmin() admin: AdminPrincipal): Promise<ProxyDto> {
    return this.learning.stop(id, admin.actor);
  }
}
