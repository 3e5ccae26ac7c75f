import { ConflictException, HttpException, Injectable, UnprocessableEntityException } from '@nestjs/common';
import type { ConfigDocument } from '@arrbiter/contracts';
import { checkBaseUrl, Discovery, ServiceRow, ServicesService } from '@arrbiter/server/services';
import type { PlanContext, WriteContext } from './import-plan';

/** An upstream a document names with a key the instance does not have yet: what it said about itself. */
export interface Discovered {
  apiKey: string;
  discovery: Discovery;
}

/** A service as it will be once the document is applied (`id` unset: created by this import). */
export interface ServiceAfter {
  id?: string;
  baseUrl: string;
  name: string;
  type: string;
}

export interface ServicesPlan {
  readonly creates: ({ baseUrl: string } & Discovered)[];
  readonly keys: ({ id: string } & Discovered)[];
  /** Filled by `prune`, once the proxies that stay are known. */
  readonly deletes: ServiceRow[];
  /** Every service once the document is applied, by base URL. */
  readonly after: ReadonlyMap<string, ServiceAfter>;
  /**
   * The service a proxy names (a base URL, or a name: the document's own first, then the instance's);
   * `undefined`, with a problem at `path`, when none or several match.
   */
  resolve(reference: string, path: string): ServiceAfter | undefined;
}

/** The document's `services`, by base URL: created with a key and what the upstream says, or a key replaced. */
@Injectable()
export class ServicesPlanner {
  constructor(private readonly services: ServicesService) {}

  /**
   * Asks each upstream the document gives a key the instance does not hold who it is (422 / 502
   * otherwise). Runs before the transaction: an upstream that does not answer stops the import first.
   */
  async discover(document: ConfigDocument): Promise<Map<string, Discovered>> {
    const result = new Map<string, Discovered>();
    if (!document.services?.length) return result;
    const known = new Map((await this.services.all()).map((service) => [service.baseUrl, service]));
    for (const [i, service] of document.services.entries()) {
      const stored = known.get(service.baseUrl);
      if (service.apiKey === undefined || (stored && this.services.apiKeyOf(stored) === service.apiKey)) continue;
      let discovery: Discovery;
      try {
        discovery = await this.services.discover(service.baseUrl, service.apiKey);
      } catch (error) {
        if (error instanceof HttpException)
          throw new HttpException({ message: [`services[${i}]: ${error.message}`] }, error.getStatus());
        throw error;
      }
      if (service.type !== undefined && discovery.type !== service.type) {
        throw new UnprocessableEntityException([
          `services[${i}].type: ${service.baseUrl} answers as a ${discovery.type}, not a ${service.type}`,
        ]);
      }
      result.set(service.baseUrl, { apiKey: service.apiKey, discovery });
    }
    return result;
  }

  plan({ document, stored, report, problems }: PlanContext, discovered: ReadonlyMap<string, Discovered>): ServicesPlan {
    const creates: ServicesPlan['creates'] = [];
    const keys: ServicesPlan['keys'] = [];
    const serviceByUrl = new Map(stored.services.map((s) => [s.baseUrl, s]));
    const after = new Map<string, ServiceAfter>(stored.services.map((s) => [s.baseUrl, s]));
    for (const [i, wanted] of (document.services ?? []).entries()) {
      const path = `services[${i}]`;
      const service = serviceByUrl.get(wanted.baseUrl);
      if (!service) {
        const found = discovered.get(wanted.baseUrl);
        if (wanted.apiKey === undefined) {
          problems.push(
            `${path}.apiKey is required to register ${wanted.baseUrl}, which this instance does not have (export with secrets, or reference a secret in CONFIG_FILE)`,
          );
          continue;
        }
        if (!found) throw new ConflictException('The services changed while importing: try again');
        after.set(wanted.baseUrl, { baseUrl: wanted.baseUrl, name: found.discovery.name, type: found.discovery.type });
        creates.push({ baseUrl: wanted.baseUrl, ...found });
        report.services.push({
          kind: 'created',
          name: wanted.baseUrl,
          changes: [`${found.discovery.type} "${found.discovery.name}"`],
        });
        continue;
      }
      if (wanted.type !== undefined && wanted.type !== service.type)
        problems.push(`${path}.type: the service at ${service.baseUrl} is a ${service.type}, not a ${wanted.type}`);
      if (wanted.apiKey !== undefined && wanted.apiKey !== this.services.apiKeyOf(service)) {
        const found = discovered.get(wanted.baseUrl);
        if (!found) throw new ConflictException('The services changed while importing: try again');
        if (found.discovery.type !== service.type)
          problems.push(`${path}: ${service.baseUrl} now answers as a ${found.discovery.type}, not a ${service.type}`);
        keys.push({ id: service.id, ...found });
        report.services.push({ kind: 'updated', name: service.baseUrl, changes: ['API key replaced'] });
      } else report.unchanged.services += 1;
    }

    const resolve = (reference: string, path: string): ServiceAfter | undefined => {
      const url = checkBaseUrl(reference);
      if (url.ok && after.has(url.url)) return after.get(url.url);
      // A name: the document's own first, then the instance's.
      const declared = (document.services ?? []).filter((s) => s.name === reference);
      const named =
        declared.length > 0
          ? declared.map((s) => after.get(s.baseUrl))
          : [...after.values()].filter((s) => s.name === reference);
      if (named.length === 1 && named[0]) return named[0];
      problems.push(
        named.length > 1
          ? `${path}: ${named.length} services are named "${reference}": name this one by its base URL`
          : `${path}: no service "${reference}" (give a base URL or the name of a service listed under services or registered here)`,
      );
      return undefined;
    };
    return { creates, keys, deletes: [], after, resolve };
  }

  /**
   * With `prune` and a `services` list: deletes the services it leaves out, unless a proxy that stays
   * (`leavingProxies` leave; `createdOn` are the base URLs new proxies use) still uses one.
   */
  prune(
    { document, prune, stored, report, problems }: PlanContext,
    plan: ServicesPlan,
    leavingProxies: ReadonlySet<string>,
    createdOn: readonly string[],
  ): void {
    if (!prune || document.services === undefined) return;
    const listed = new Set(document.services.map((s) => s.baseUrl));
    const usedIds = new Set(stored.proxies.filter((p) => !leavingProxies.has(p.id)).map((p) => p.serviceId));
    const usedUrls = new Set(createdOn);
    for (const service of stored.services) {
      if (listed.has(service.baseUrl)) continue;
      if (usedIds.has(service.id) || usedUrls.has(service.baseUrl)) {
        problems.push(
          `services: ${service.baseUrl} is not listed but proxies that stay use it: list it, or remove those proxies`,
        );
        continue;
      }
      plan.deletes.push(service);
      report.services.push({
        kind: 'deleted',
        name: service.baseUrl,
        changes: [`${service.type} "${service.name}"`],
      });
    }
  }

  /** Creates the new services and replaces the changed keys (first: proxies refer to them). */
  async write(plan: ServicesPlan, context: WriteContext): Promise<void> {
    for (const { baseUrl, apiKey, discovery } of plan.creates) {
      const service = await this.services.createInTransaction({ baseUrl, apiKey, discovery }, context.actor);
      context.serviceIds.set(baseUrl, service.id);
      context.written.push({ service, apiKey });
    }
    for (const { id, apiKey, discovery } of plan.keys) {
      const service = await this.services.replaceKeyInTransaction(id, { apiKey, discovery }, context.actor);
      context.written.push({ service, apiKey });
    }
  }

  /** Deletes the pruned services (last: once no proxy uses them). */
  async remove(plan: ServicesPlan, { actor }: WriteContext): Promise<void> {
    for (const service of plan.deletes) await this.services.removeInTransaction(service.id, actor);
  }
}
