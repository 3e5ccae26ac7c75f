import { BadRequestException, Injectable, NotFoundException, UnprocessableEntityException } from '@nestjs/common';
import type {
  AllowlistMap,
  ApplyFitRequest,
  ApplyFitResponse,
  FitResult,
  ProxyFitResponse,
  SuggestedTemplate,
  TemplateFitResponse,
} from '@arrbiter/contracts';
import { effectiveAllowlist } from '@arrbiter/server/catalog';
import { ProxyAllowlistContext, ProxyAllowlistService } from '@arrbiter/server/proxies';
import { TemplateRow, TemplatesService } from '@arrbiter/server/templates';
import { fitChanges, fitOf, suggestedBlock, templateFileText } from './fit';
import type { KnownClient } from './known-client';
import { KnownClientsService, serviceTypesOf } from './known-clients.service';

/** A file to download. */
export interface Download {
  filename: string;
  body: string;
}

/**
 * How well an allowlist fits a known client, computed with the proxy's own route resolution (`fitOf`):
 * a proxy's effective allowlist against its service's catalog, or a template's blocks against the
 * catalogs of their service types; applying a fit to a proxy (one `client-fit` revision, through
 * `ProxyAllowlistService`), and the template a fit suggests.
 */
@Injectable()
export class ClientFitService {
  constructor(
    private readonly known: KnownClientsService,
    private readonly allowlists: ProxyAllowlistService,
    private readonly templates: TemplatesService,
  ) {}

  /** The fit of a proxy's effective allowlist; `clientId` defaults to the client of the app's template. */
  async proxyFit(proxyId: string, clientId?: string): Promise<ProxyFitResponse> {
    const context = await this.allowlists.allowlistContext(proxyId);
    const client = clientId !== undefined ? this.known.find(clientId) : await this.clientOfApp(context);
    return this.fitOfContext(client, context);
  }

  /**
   * Grants the client's missing calls and/or revokes the grants it never uses, as one `client-fit`
   * revision planned under the proxy's row lock; then the fit as it is now. The revision is null when
   * there was nothing to change.
   */
  async apply(proxyId: string, request: ApplyFitRequest, actor: string): Promise<ApplyFitResponse> {
    if (!request.grantMissing && !request.revokeUnused)
      throw new BadRequestException('Nothing to apply: set grantMissing, revokeUnused or both to true');
    const client = this.known.find(request.client);
    const revision = await this.allowlists.applyFit(
      proxyId,
      async (context) => fitChanges(await this.fitOfContext(client, context), request),
      actor,
      `Fitted to ${client.name}`,
    );
    return { revision, fit: await this.proxyFit(proxyId, client.id) };
  }

  /** The fit of each of a template's blocks whose service type the client calls. */
  async templateFit(templateId: string, clientId?: string): Promise<TemplateFitResponse> {
    const template = await this.templates.find(templateId);
    const client = this.clientOfTemplate(template, clientId);
    const services: FitResult[] = [];
    for (const type of Object.keys(template.blocks).sort()) {
      if (serviceTypesOf(client).includes(type)) services.push(await this.templateBlockFit(client, type, template));
    }
    return { client: client.id, clientName: client.name, templateId: template.id, services };
  }

  /**
   * The template with the client's missing calls added and its unused grants removed, block by block
   * (blocks of service types the client does not call are kept as they are); with `serviceType`, that
   * block alone, as the community repository's file `<serviceType>/<name>.json` would hold it.
   */
  async suggested(templateId: string, clientId?: string, serviceType?: string): Promise<Download> {
    const template = await this.templates.find(templateId);
    const client = this.clientOfTemplate(template, clientId);
    const filename = `${template.name}.json`;
    if (serviceType !== undefined) {
      if (!template.blocks[serviceType])
        throw new NotFoundException(`The template "${template.name}" has no block for ${serviceType}`);
      this.requireCalls(client, serviceType);
      return { filename, body: templateFileText(await this.suggestedBlock(client, serviceType, template)) };
    }
    const blocks: Record<string, AllowlistMap> = {};
    for (const type of Object.keys(template.blocks).sort())
      blocks[type] = await this.suggestedBlock(client, type, template);
    const suggested: SuggestedTemplate = { name: template.name, blocks };
    return { filename, body: `${JSON.stringify(suggested, null, 4)}\n` };
  }

  private async suggestedBlock(client: KnownClient, type: string, template: TemplateRow): Promise<AllowlistMap> {
    const block = template.blocks[type] ?? {};
    if (!serviceTypesOf(client).includes(type)) return suggestedBlock(block);
    return suggestedBlock(block, await this.templateBlockFit(client, type, template));
  }

  private async templateBlockFit(client: KnownClient, type: string, template: TemplateRow): Promise<FitResult> {
    const block = template.blocks[type] ?? {};
    return fitOf(client, type, await this.known.catalogOfType(type), effectiveAllowlist(block, {}));
  }

  private async fitOfContext(client: KnownClient, context: ProxyAllowlistContext): Promise<FitResult> {
    this.requireCalls(client, context.serviceType);
    const catalog = await this.known.catalogOf(context.serviceType, context.apiVersions);
    return fitOf(client, context.serviceType, catalog, effectiveAllowlist(context.template, context.overrides));
  }

  /** 422 when the client makes no call to this service type: there is nothing to fit (and revoking "unused" grants would empty the allowlist). */
  private requireCalls(client: KnownClient, serviceType: string): void {
    if (!serviceTypesOf(client).includes(serviceType))
      throw new UnprocessableEntityException(
        `${client.name} makes no calls to ${serviceType} (it calls ${serviceTypesOf(client).join(', ') || 'nothing'})`,
      );
  }

  /**
   * The client an app's proxy is fitted to by default: the known client the app was connected as, else
   * the one written for its template.
   */
  private async clientOfApp({
    knownClientId,
    templateId,
  }: Pick<ProxyAllowlistContext, 'knownClientId' | 'templateId'>): Promise<KnownClient> {
    const connected = knownClientId !== null ? this.known.list().find((c) => c.id === knownClientId) : undefined;
    if (connected) return this.known.find(connected.id);
    const name = templateId === null ? undefined : (await this.templates.namesOf([templateId])).get(templateId);
    if (name === undefined)
      throw new NotFoundException(
        'The app was not connected as a known client and has no template to take one from: name one with ?client=',
      );
    const client = this.known.forTemplate(name);
    if (!client) throw new NotFoundException(`No known client for the template "${name}": name one with ?client=`);
    return client;
  }

  private clientOfTemplate(template: TemplateRow, clientId: string | undefined): KnownClient {
    if (clientId !== undefined) return this.known.find(clientId);
    const client = this.known.forTemplate(template.name);
    if (!client)
      throw new NotFoundException(`No known client for the template "${template.name}": name one with ?client=`);
    return client;
  }
}
