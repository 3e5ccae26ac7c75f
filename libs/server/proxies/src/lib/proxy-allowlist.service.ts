import { Injectable } from '@nestjs/common';
import type {
  AllowlistMap,
  AllowlistResponse,
  EndpointsResponse,
  Grant,
  ProxyConfigSaveResponse,
  RevisionDto,
} from '@arrbiter/contracts';
import { CatalogService } from '@arrbiter/server/catalog';
import { toRevisionDto } from '@arrbiter/server/history';
import {
  allowlistOf,
  checkedOverrides,
  diffGrants,
  effectiveAllowlist,
  overridesWithChanges,
  overridesWithGrants,
} from '@arrbiter/server/permissions';
import { ProxyConfigDto } from './dto/proxy.dto';
import { buildEndpoints, catalogTags, EndpointQuery } from './endpoints';
import { ProxyRevisionsService, Revise } from './proxy-revisions.service';
import { ProxyContext, ProxyStore } from './proxy-store';

/** What a proxy's allowlist is made of, and the service catalog it is read against. */
export interface ProxyAllowlistContext {
  proxyId: string;
  serviceType: string;
  /** The service's API versions: its catalog is the union of theirs (`CatalogService.routesFor`). */
  apiVersions: string[];
  templateId: string | null;
  /** The known client the app was connected as (its fit's default client), null for none. */
  knownClientId: string | null;
  /** The app's template block for the service's type ({} without a template). */
  template: AllowlistMap;
  overrides: AllowlistMap;
}

/** Grants to add to the effective allowlist and grants to take away from it. */
export interface AllowlistChanges {
  grants: readonly Grant[];
  revokes: readonly Grant[];
}

/** Thrown inside a revision's transaction when there is nothing to change: the write is rolled back. */
class NothingToChange extends Error {}

function allowlistContextOf({ proxy, service, app, template }: ProxyContext): ProxyAllowlistContext {
  return {
    proxyId: proxy.id,
    serviceType: service.type,
    apiVersions: [...service.apiVersions],
    templateId: app.templateId,
    knownClientId: app.knownClientId,
    template,
    overrides: proxy.overrides,
  };
}

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
  async saveConfig(id: string, dto: ProxyConfigDto, actor: string): Promise<ProxyConfigSaveResponse> {
    const overrides = checkedOverrides(dto.overrides);
    const { context, revision } = await this.revisions.revise(id, {
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
    return { ...allowlistOfContext(context), revisionId: revision.id };
  }

  /** What the allowlist is made of and which catalog it is read against. */
  async allowlistContext(id: string): Promise<ProxyAllowlistContext> {
    return allowlistContextOf(await this.store.context(id));
  }

  /**
   * Grants and revokes on the effective allowlist, planned by `plan` from the proxy as it is under the
   * row lock (a known client's fit), written through the overrides as one `client-fit` revision headed
   * `title`. A revoked grant of the template becomes an override that leaves its method out. Null, and
   * nothing written, when the plan changes nothing.
   */
  async applyFit(
    id: string,
    plan: (context: ProxyAllowlistContext) => Promise<AllowlistChanges>,
    actor: string,
    title: string,
  ): Promise<RevisionDto | null> {
    try {
      const { revision } = await this.revisions.revise(id, {
        kind: 'client-fit',
        actor,
        action: 'proxy.client-fitted',
        title,
        apply: async (context) => {
          const { proxy, template } = context;
          const { grants, revokes } = await plan(allowlistContextOf(context));
          const overrides = overridesWithChanges(template, proxy.overrides, grants, revokes);
          const { added, removed } = diffGrants(
            effectiveAllowlist(template, proxy.overrides),
            effectiveAllowlist(template, overrides),
          );
          if (added.length === 0 && removed.length === 0) throw new NothingToChange();
          proxy.overrides = overrides;
        },
      });
      return toRevisionDto(revision);
    } catch (error) {
      if (error instanceof NothingToChange) return null;
      throw error;
    }
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
      items: buildEndpoints(service.type, routes, template, proxy.overrides, query),
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
    const { revision } = await this.revisions.revise(id, grantRevision(grants, actor, alongside));
    return toRevisionDto(revision);
  }

  /**
   * `grant` in the caller's transaction (several proxies' grants written together); the caller
   * publishes `proxies` for each once it has committed.
   */
  async grantInTransaction(
    id: string,
    grants: readonly Grant[],
    actor: string,
    alongside?: Revise['alongside'],
  ): Promise<RevisionDto> {
    const { revision } = await this.revisions.reviseInTransaction(id, grantRevision(grants, actor, alongside));
    return toRevisionDto(revision);
  }
}

/** The `warning-grant` revision that adds `grants` to the effective allowlist. */
function grantRevision(grants: readonly Grant[], actor: string, alongside?: Revise['alongside']): Revise {
  return {
    kind: 'warning-grant',
    actor,
    action: 'proxy.granted-from-warnings',
    apply: ({ proxy, template }) => {
      proxy.overrides = overridesWithGrants(template, proxy.overrides, grants);
    },
    alongside,
  };
}

function allowlistOfContext({ proxy, template }: ProxyContext): AllowlistResponse {
  return allowlistOf(template, proxy.overrides);
}
