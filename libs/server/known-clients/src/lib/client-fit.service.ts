import {
  BadRequestException,
  ConflictException,
  Inject,
  Injectable,
  Optional,
  NotFoundException,
  UnprocessableEntityException,
} from '@nestjs/common';
import type {
  AllowlistMap,
  ApplyFitRequest,
  ApplyFitResponse,
  FitResult,
  ProxyFitResponse,
  SuggestedTemplate,
  TemplateFitResponse,
  TemplatesFitResponse,
} from '@arrbiter/contracts';
import { effectiveAllowlist, routeShape } from '@arrbiter/server/catalog';
import { Clock } from '@arrbiter/server/config';
import { ProxyAllowlistContext, ProxyAllowlistService } from '@arrbiter/server/proxies';
import { TemplateRow, TemplatesService } from '@arrbiter/server/templates';
import { UsageCounter, UsageRecorder, UsageService } from '@arrbiter/server/usage';
import { FitChangeError, fitChanges, fitOf, suggestedBlock, templateFileText } from './fit';
import type { KnownClient } from './known-client';
import { KnownClientsService, serviceTypesOf } from './known-clients.service';

/** How long a grant must have gone uncalled before `fit/apply` may revoke it, when the request does not say. */
export const DEFAULT_UNUSED_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

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
    private readonly usage: UsageService,
    private readonly usageRecorder: UsageRecorder,
    private readonly clock: Clock,
    /** Null with `USAGE_COUNTING=false`: then nothing tells what the proxy has not called, and nothing is revoked. */
    @Optional() @Inject(UsageCounter) private readonly counter: UsageCounter | null = null,
  ) {}

  /**
   * The fit of a proxy's effective allowlist; `clientId` defaults to the client of the app. Each unused
   * grant carries the last call the proxy's usage holds on it; with `unusedDays`, only the grants not
   * called for that many days are unused.
   */
  async proxyFit(proxyId: string, clientId?: string, unusedDays?: number): Promise<ProxyFitResponse> {
    const context = await this.allowlists.allowlistContext(proxyId);
    const client = clientId !== undefined ? this.known.find(clientId) : await this.clientOfApp(context);
    const fit = await this.fitOfContext(client, context);
    await this.usageRecorder.flush();
    return this.withUsage(fit, proxyId, unusedDays);
  }

  /**
   * Grants the client's missing calls (the sensitive ones only when named: 400 for a named call that is
   * not a missing sensitive one) and/or revokes exactly the listed grants, each of which must be unused
   * for `unusedDays` (409 naming it otherwise), as one `client-fit` revision planned under the proxy's
   * row lock; nothing is written on a refusal. Then the fit as it is now. The revision is null when
   * there was nothing to change.
   */
  async apply(proxyId: string, request: ApplyFitRequest, actor: string): Promise<ApplyFitResponse> {
    const revoke = request.revoke ?? [];
    const include = request.include?.sensitive ?? [];
    if (!request.grantMissing && include.length > 0)
      throw new BadRequestException('include.sensitive names calls to grant: it needs grantMissing set to true');
    if (!request.grantMissing && revoke.length === 0)
      throw new BadRequestException('Nothing to apply: set grantMissing to true, list the grants to revoke, or both');
    const client = this.known.find(request.client);
    if (revoke.length > 0 && this.counter === null)
      throw new ConflictException(
        "Usage counting is off (USAGE_COUNTING=false): the proxy's own calls cannot tell which grants are unused, so none is revoked",
      );
    const unusedDays = request.unusedDays ?? DEFAULT_UNUSED_DAYS;
    // This replica's counts are written before the row lock is taken (their write locks the proxy's row too).
    await this.usageRecorder.flush();
    const revision = await this.allowlists.applyFit(
      proxyId,
      async (context) => {
        const fit = await this.withUsage(await this.fitOfContext(client, context), proxyId, unusedDays);
        try {
          return fitChanges(fit, { grantMissing: request.grantMissing, includeSensitive: include, revoke });
        } catch (error) {
          if (!(error instanceof FitChangeError)) throw error;
          if (error.kind === 'sensitive') throw new BadRequestException(error.message);
          throw new ConflictException(
            `${error.call.method.toUpperCase()} ${error.call.route} is not an unused grant for ${unusedDays} days (not granted, called by ${client.name}, or called through the proxy since): nothing was revoked`,
          );
        }
      },
      actor,
      `Fitted to ${client.name}`,
    );
    return { revision, fit: await this.proxyFit(proxyId, client.id, request.unusedDays) };
  }

  /**
   * Every template's fit (the Templates page, in one answer): against `clientId`, or the client written
   * for each template; templates with neither are left out.
   */
  async templatesFit(clientId?: string): Promise<TemplatesFitResponse> {
    const named = clientId !== undefined ? this.known.find(clientId) : undefined;
    const items: TemplateFitResponse[] = [];
    for (const template of await this.templates.stored()) {
      const client = named ?? this.known.forTemplate(template.name);
      if (client) items.push(await this.fitOfTemplate(template, client));
    }
    return { items };
  }

  /** The fit of each of a template's blocks whose service type the client calls. */
  async templateFit(templateId: string, clientId?: string): Promise<TemplateFitResponse> {
    const template = await this.templates.find(templateId);
    return this.fitOfTemplate(template, this.clientOfTemplate(template, clientId));
  }

  private async fitOfTemplate(template: TemplateRow, client: KnownClient): Promise<TemplateFitResponse> {
    const services: FitResult[] = [];
    for (const type of Object.keys(template.blocks).sort()) {
      if (serviceTypesOf(client).includes(type)) services.push(await this.templateBlockFit(client, type, template));
    }
    return { client: client.id, clientName: client.name, templateId: template.id, services };
  }

  /**
   * The template with the client's missing calls added (the sensitive ones only with
   * `includeSensitive`) and its unused grants removed, block by block (blocks of service types the
   * client does not call are kept as they are); with `serviceType`, that block alone, as the community
   * repository's file `<serviceType>/<name>.json` would hold it.
   */
  async suggested(
    templateId: string,
    clientId?: string,
    serviceType?: string,
    includeSensitive = false,
  ): Promise<Download> {
    const template = await this.templates.find(templateId);
    const client = this.clientOfTemplate(template, clientId);
    const filename = `${template.name}.json`;
    if (serviceType !== undefined) {
      if (!template.blocks[serviceType])
        throw new NotFoundException(`The template "${template.name}" has no block for ${serviceType}`);
      this.requireCalls(client, serviceType);
      return {
        filename,
        body: templateFileText(await this.suggestedBlock(client, serviceType, template, includeSensitive)),
      };
    }
    const blocks: Record<string, AllowlistMap> = {};
    for (const type of Object.keys(template.blocks).sort())
      blocks[type] = await this.suggestedBlock(client, type, template, includeSensitive);
    const suggested: SuggestedTemplate = { name: template.name, blocks };
    return { filename, body: `${JSON.stringify(suggested, null, 4)}\n` };
  }

  private async suggestedBlock(
    client: KnownClient,
    type: string,
    template: TemplateRow,
    includeSensitive: boolean,
  ): Promise<AllowlistMap> {
    const block = template.blocks[type] ?? {};
    if (!serviceTypesOf(client).includes(type)) return suggestedBlock(block);
    return suggestedBlock(block, await this.templateBlockFit(client, type, template), includeSensitive);
  }

  /**
   * The fit with the last call the proxy's stored usage holds on each unused grant (null when none is
   * kept); with `unusedDays`, the grants called within that many days are no longer unused.
   */
  private async withUsage(fit: FitResult, proxyId: string, unusedDays?: number): Promise<FitResult> {
    const lastSeen = await this.usage.lastSeenByRoute(proxyId);
    const since = unusedDays === undefined ? undefined : this.clock.now() - unusedDays * DAY_MS;
    const unused = fit.unused
      .map((grant) => ({
        ...grant,
        lastSeen: lastSeen.get(`${grant.method} ${routeShape(grant.route)}`)?.toISOString() ?? null,
      }))
      .filter((grant) => since === undefined || grant.lastSeen === null || Date.parse(grant.lastSeen) < since);
    return { ...fit, unused };
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
