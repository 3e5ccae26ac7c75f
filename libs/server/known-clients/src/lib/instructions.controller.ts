import { Controller, Get, Header, Param, ParseUUIDPipe, Query, Req } from '@nestjs/common';
import type { ClientInstructionsDto } from '@arrbiter/contracts';
import { AdminPrincipal, CurrentAdmin, hasRole, ReadAccess } from '@arrbiter/server/access';
import { AppsService } from '@arrbiter/server/apps';
import { ExternalUrls } from '@arrbiter/server/config';
import { ProxiesService } from '@arrbiter/server/proxies';
import { ServicesService } from '@arrbiter/server/services';
import { TemplatesService } from '@arrbiter/server/templates';
import type { Request } from 'express';
import { KNOWN_CLIENTS } from './catalogue';
import { FitQueryDto } from './dto/fit.dto';
import { OTHER_CLIENT, renderInstructions } from './instructions';
import type { KnownClient } from './known-client';
import { KnownClientsService } from './known-clients.service';

/** What to type into a client's own settings to use a proxy, with the proxy's real values. */
@Controller('api/admin/v1')
export class InstructionsController {
  constructor(
    private readonly known: KnownClientsService,
    private readonly proxies: ProxiesService,
    private readonly apps: AppsService,
    private readonly services: ServicesService,
    private readonly templates: TemplatesService,
    private readonly urls: ExternalUrls,
  ) {}

  /**
   * `?client=` names the client (`other`: the generic instructions); by default the client the app was
   * connected as, else the one written for the app's template, else the generic instructions. The key
   * only for editors and owners, as `GET proxies/:id` decides (`••••` for viewers); never cached.
   * 404 for an unknown proxy or client.
   */
  @ReadAccess()
  @Get('proxies/:id/instructions')
  @Header('Cache-Control', 'no-store')
  async instructions(
    @Param('id', ParseUUIDPipe) id: string,
    @Query() query: FitQueryDto,
    @CurrentAdmin() admin: AdminPrincipal,
    @Req() request: Request,
  ): Promise<ClientInstructionsDto> {
    const proxy = await this.proxies.get(id, hasRole(admin.role, 'editor'), this.urls.urlOf(request));
    const client =
      query.client === OTHER_CLIENT.id
        ? null
        : query.client !== undefined
          ? this.known.find(query.client)
          : await this.clientOfApp(proxy.appId);
    const service = await this.services.find(proxy.serviceId);
    return renderInstructions(client, {
      serviceId: service.id,
      proxyId: proxy.id,
      serviceName: service.name,
      serviceType: service.type,
      proxyUrl: proxy.proxyUrl,
      key: proxy.key ?? null,
    });
  }

  /** The client the app was connected as, else the one written for its template; null (generic) without either. */
  private async clientOfApp(appId: string): Promise<KnownClient | null> {
    const app = await this.apps.find(appId);
    const connected = KNOWN_CLIENTS.find((client) => client.id === app.knownClientId);
    if (connected) return connected;
    if (app.templateId === null) return null;
    const name = (await this.templates.namesOf([app.templateId])).get(app.templateId);
    return (name !== undefined ? this.known.forTemplate(name) : undefined) ?? null;
  }
}
