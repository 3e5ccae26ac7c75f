import { Injectable } from '@nestjs/common';
import type { AllowlistMap, Grant, TemplateBlockChange } from '@arrbiter/contracts';
import { AppsService } from '@arrbiter/server/apps';
import { RevisionRecord } from '@arrbiter/server/history';
import { effectiveAllowlist, summarize } from '@arrbiter/server/permissions';
import { ProxiesService } from '@arrbiter/server/proxies';
import { ServicesService } from '@arrbiter/server/services';
import { normaliseAllowlist } from '@arrbiter/server/templates';
import { diffGrants, reviseAllowlist } from '@arrbiter/shared/allowlist-rules';

/** A template's blocks by service type. */
export type Blocks = Record<string, AllowlistMap>;

/** One proxy whose effective allowlist a template change changes. */
export interface ProxyImpact {
  change: { proxyId: string; appId: string; appName: string; added: Grant[]; removed: Grant[] };
  serviceType: string;
  /** Its `template-sync` revision (the caller sets the author). */
  revision: RevisionRecord;
}

/** The blocks with the grants of `changes` added (a held widening applied). */
export function withAdditions(blocks: Blocks, changes: readonly TemplateBlockChange[]): Blocks {
  const result: Blocks = { ...blocks };
  for (const change of changes) {
    if (change.added.length === 0) continue;
    result[change.serviceType] = normaliseAllowlist(reviseAllowlist(result[change.serviceType] ?? {}, change.added));
  }
  return result;
}

/**
 * The blocks without the grants of `changes` added (what a sync applies of a widening it holds); a
 * service type left empty that `before` did not have is left out.
 */
export function withoutAdditions(blocks: Blocks, changes: readonly TemplateBlockChange[], before: Blocks): Blocks {
  const result: Blocks = { ...blocks };
  for (const change of changes) {
    if (change.added.length === 0 || !result[change.serviceType]) continue;
    const block = normaliseAllowlist(reviseAllowlist(result[change.serviceType], [], change.added));
    if (Object.keys(block).length === 0 && !before[change.serviceType]) delete result[change.serviceType];
    else result[change.serviceType] = block;
  }
  return result;
}

/** Whether two changes add the same grants (paths compared by route shape), whatever they remove. */
export function sameAdditions(a: readonly TemplateBlockChange[], b: readonly TemplateBlockChange[]): boolean {
  const added = (changes: readonly TemplateBlockChange[]) =>
    new Map(changes.filter((c) => c.added.length > 0).map((c) => [c.serviceType, reviseAllowlist({}, c.added)]));
  const left = added(a);
  const right = added(b);
  if (left.size !== right.size) return false;
  for (const [type, block] of left) {
    const other = right.get(type);
    if (!other) return false;
    const diff = diffGrants(block, other);
    if (diff.added.length > 0 || diff.removed.length > 0) return false;
  }
  return true;
}

/** Which proxies a template change reaches, through the apps that use the template. */
@Injectable()
export class TemplateImpact {
  constructor(
    private readonly apps: AppsService,
    private readonly proxies: ProxiesService,
    private readonly services: ServicesService,
  ) {}

  /** The proxies whose effective allowlist the changed templates change, with what they gain and lose. */
  async of(changed: ReadonlyMap<string, { before: Blocks; after: Blocks }>): Promise<ProxyImpact[]> {
    if (changed.size === 0) return [];
    const apps = await this.apps.ofTemplates([...changed.keys()]);
    if (apps.length === 0) return [];
    const proxies = await this.proxies.ofApps(apps.map((a) => a.id));
    const services = await this.services.byIds(proxies.map((p) => p.serviceId));
    const appsById = new Map(apps.map((a) => [a.id, a]));
    const result: ProxyImpact[] = [];
    for (const proxy of proxies) {
      const app = appsById.get(proxy.appId);
      const service = services.get(proxy.serviceId);
      const blocks = app?.templateId ? changed.get(app.templateId) : undefined;
      if (!app || !service || !blocks) continue;
      const summary = summarize('template-sync', {
        effectiveBefore: effectiveAllowlist(blocks.before[service.type] ?? {}, proxy.overrides),
        effectiveAfter: effectiveAllowlist(blocks.after[service.type] ?? {}, proxy.overrides),
        activeBefore: proxy.active,
        activeAfter: proxy.active,
      });
      const { added, removed } = summary;
      if (added.length === 0 && removed.length === 0) continue;
      result.push({
        change: { proxyId: proxy.id, appId: app.id, appName: app.name, added, removed },
        serviceType: service.type,
        revision: {
          proxyId: proxy.id,
          kind: 'template-sync',
          overrides: proxy.overrides,
          active: proxy.active,
          author: '',
          summary,
        },
      });
    }
    return result;
  }
}
