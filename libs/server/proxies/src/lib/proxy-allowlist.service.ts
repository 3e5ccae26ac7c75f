import { Injectable } from '@nestjs/common';
import type { AllowlistResponse, EndpointsResponse, Grant, RevisionDto } from '@arrbiter/contracts';
import { CatalogService } from '@arrbiter/server/catalog';
import { toRevisionDto } from '@arrbiter/server/history';
import { allowlistOf, checkedOverrides, overridesWithGrants } from '@arrbiter/server/permissions';
import { ProxyConfigDto } from './dto/proxy.dto';
import { buildEndpoints, catalogTags, EndpointQuery } from './endpoints';
import { ProxyRevisionsService, Revise } from './proxy-revisions.service';
import { ProxyContext, ProxyStore } from './proxy-store';

/**
 * A proxy's allowlist: its overrides over the template block, what it grants per catalog route, and
 * the writes that change it (each one a revision).
 */
@Injectable()
export class ProxyAllowlistService {
  constructor(
    private readonly store: ProxyStore,
    private readonly revisions: ProxyRevisionsService,
    private readonly catalog: CatalogService,
  ) {}

  /** Saves the overrides and the active state together (a `manual` revision); the next request sees them. */
  async saveConfig(id: string, dto: ProxyConfigDto, actor: string): Promise<AllowlistResponse> {
    const overrides = checkedOverrides(dto.overrides);
    const { context } = await this.revisions.revise(id, {
      kind: 'manual',
      actor,
      action: 'proxy.config-saved',
      apply: ({ proxy }) => {
        proxy.overrides = overrides;
        proxy.active = dto.active;
        if (dto.rateLimit !== undefined) {
          proxy.rateLimitPerMinute = dto.rateLimit?.perMinute ?? null;
          proxy.rateLimitBurst = dto.rateLimit?.burst ?? null;
        }
        if (dto.scrub !== undefined) proxy.scrub = dto.scrub;
      },
    });
    return allowlistOfContext(context);
  }

  async allowlist(id: string): Promise<AllowlistResponse> {
    return allowlistOfContext(await this.store.context(id));
  }

  /** The permission catalog: per catalog route and method, template / override / effective; then unknown paths. */
  async endpoints(id: string, query: EndpointQuery): Promise<EndpointsResponse> {
    const { proxy, app, service, template } = await this.store.context(id);
    await this.catalog.ready();
    const routes = this.catalog.routesFor(service.type, service.apiVersions);
    return {
      serviceType: service.type,
      templateId: app.templateId,
      tags: catalogTags(routes),
      items: buildEndpoints(routes, template, proxy.overrides, query),
    };
  }

  /**
   * Adds grants on top of the effective allowlist (nothing the template grants for those paths is
   * lost), as one `warning-grant` revision; `alongside` writes more in its transaction (through the
   * writer's own service).
   */
  async grant(
    id: string,
    grants: readonly Grant[],
    actor: string,
    alongside?: Revise['alongside'],
  ): Promise<RevisionDto> {
    const { revision } = await this.revisions.revise(id, {
      kind: 'warning-grant',
      actor,
      action: 'proxy.granted-from-warnings',
      apply: ({ proxy, template }) => {
        proxy.overrides = overridesWithGrants(template, proxy.overrides, grants);
      },
      alongside,
    });
    return toRevisionDto(revision);
  }
}

function allowlistOfContext({ proxy, template }: ProxyContext): AllowlistResponse {
  return allowlistOf(template, proxy.overrides);
}
