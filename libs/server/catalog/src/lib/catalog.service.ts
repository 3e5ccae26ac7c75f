import { InjectRepository } from '@nestjs/typeorm';
import { BadRequestException, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { OpenApiDocumentDto } from '@arrbiter/contracts';
import { AppConfig } from '@arrbiter/server/config';
import { ChangeBus } from '@arrbiter/server/database';
import { readLimitedText } from '@arrbiter/server/http';
import { Repository } from 'typeorm';
import { mergeCatalogs } from './catalog';
import { OpenApiDocumentEntity } from './entities/openapi-document.entity';
import { CatalogRoute, InvalidOpenApiError, parseOpenApi } from './openapi';

const FETCH_TIMEOUT_MS = 15_000;
const MAX_DOCUMENT_BYTES = 10 * 1024 * 1024;

export const SERVICE_TYPE = /^[a-z][a-z0-9-]{0,31}$/;
export const API_VERSION = /^v\d{1,2}$/;

/** Fetches the description of one API version from the upstream itself, or undefined. */
export type UpstreamDescriptionFetcher = (apiVersion: string) => Promise<unknown>;

/**
 * OpenAPI descriptions per service type and API version, stored in the database and held in memory
 * as route tables. A service's catalog is the union over the versions it serves.
 */
@Injectable()
export class CatalogService implements OnApplicationBootstrap {
  private readonly logger = new Logger(CatalogService.name);
  private readonly routes = new Map<string, CatalogRoute[]>();
  private loaded?: Promise<void>;
  private routeTableVersion = 0;

  constructor(
    @InjectRepository(OpenApiDocumentEntity) private readonly documents: Repository<OpenApiDocumentEntity>,
    private readonly config: AppConfig,
    private readonly changes: ChangeBus,
  ) {
    // Another replica stored a description (or this one reconnected): read them all again. The
    // proxy state's rebuild for the same change waits for it (`ready()`).
    changes.subscribe((change) => {
      if (change.origin !== undefined && (change.topic === 'catalog' || change.topic === 'all'))
        this.loaded = this.load();
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.ready();
  }

  /** Resolves once the stored descriptions are loaded (loads them on first call). */
  ready(): Promise<void> {
    this.loaded ??= this.load();
    return this.loaded;
  }

  /** Changes whenever the route tables change (what is computed from them can be kept until it does). */
  get generation(): number {
    return this.routeTableVersion;
  }

  /** Reads every stored description into route tables. */
  private async load(): Promise<void> {
    const documents = await this.documents.find();
    this.routes.clear();
    this.routeTableVersion += 1;
    for (const doc of documents) {
      try {
        this.routes.set(
          key(doc.serviceType, doc.apiVersion),
          this.parse(doc.document, doc.serviceType, doc.apiVersion),
        );
      } catch (error) {
        this.logger.warn(
          `Stored description ${doc.serviceType}/${doc.apiVersion} is unusable: ${(error as Error).message}`,
        );
      }
    }
  }

  /** The catalog of a service: the union of the route tables of the versions it serves. */
  routesFor(serviceType: string, apiVersions: readonly string[]): CatalogRoute[] {
    return mergeCatalogs(apiVersions.map((v) => this.routes.get(key(serviceType, v)) ?? []));
  }

  /** The union of every stored version's routes of a service type (what a template of that type may meet). */
  routesOfType(serviceType: string): CatalogRoute[] {
    const versions = [...this.routes.keys()]
      .filter((k) => k.startsWith(`${serviceType}/`))
      .sort()
      .map((k) => k.slice(serviceType.length + 1));
    return this.routesFor(serviceType, versions);
  }

  async list(): Promise<OpenApiDocumentDto[]> {
    const docs = await this.documents.find({
      select: { serviceType: true, apiVersion: true, source: true, routeCount: true, updatedAt: true },
      order: { serviceType: 'ASC', apiVersion: 'ASC' },
    });
    return docs.map(toDto);
  }

  /** Stores an admin's upload (replacing what was there). */
  async upload(serviceType: string, apiVersion: string, document: unknown): Promise<OpenApiDocumentDto> {
    if (!SERVICE_TYPE.test(serviceType))
      throw new BadRequestException('serviceType must be a lower-case name such as sonarr');
    if (!API_VERSION.test(apiVersion)) throw new BadRequestException('apiVersion must look like v3');
    let routes: CatalogRoute[];
    try {
      routes = this.parse(document, serviceType, apiVersion);
    } catch (error) {
      if (error instanceof InvalidOpenApiError) throw new BadRequestException(error.message);
      throw error;
    }
    if (routes.length === 0) throw new BadRequestException('The description has no API routes');
    await this.ready();
    const saved = await this.store(serviceType, apiVersion, document, routes, 'upload');
    return toDto(saved);
  }

  /**
   * Makes sure a description is stored for each version: from the upstream where it serves one, else
   * from OPENAPI_SOURCES. Failures are logged, never thrown: an admin can still upload one.
   */
  async ensure(
    serviceType: string,
    apiVersions: readonly string[],
    fromUpstream: UpstreamDescriptionFetcher,
  ): Promise<void> {
    await this.ready();
    let added = false;
    for (const version of apiVersions) {
      if (this.routes.has(key(serviceType, version))) continue;
      const found =
        (await this.tryUpstream(fromUpstream, serviceType, version)) ?? (await this.trySources(serviceType, version));
      if (!found) {
        this.logger.warn(
          `No OpenAPI description for ${serviceType}/${version}: upload one (PUT /api/admin/v1/openapi/${serviceType}/${version})`,
        );
        continue;
      }
      await this.store(serviceType, version, found.document, found.routes, found.source, false);
      added = true;
    }
    if (added) await this.changes.publish('catalog');
  }

  private async tryUpstream(fetcher: UpstreamDescriptionFetcher, serviceType: string, version: string) {
    try {
      const document = await fetcher(version);
      const routes = document === undefined ? [] : this.parse(document, serviceType, version);
      return routes.length > 0 ? { document, routes, source: 'upstream' as const } : undefined;
    } catch {
      return undefined;
    }
  }

  private async trySources(serviceType: string, version: string) {
    for (const template of this.config.openapiSources) {
      const url = sourceUrl(template, serviceType, version);
      try {
        const response = await fetch(url, { signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), redirect: 'follow' });
        if (!response.ok) {
          await response.body?.cancel();
          continue;
        }
        // Counted as it arrives: a chunked answer declares no length, and the transfer stops at the limit.
        const document: unknown = JSON.parse(await readLimitedText(response, MAX_DOCUMENT_BYTES));
        const routes = this.parse(document, serviceType, version);
        if (routes.length > 0) return { document, routes, source: 'source' as const };
      } catch (error) {
        this.logger.warn(`Fetching ${url} failed: ${(error as Error).message}`);
      }
    }
    return undefined;
  }

  /** The routes of a description; each route it leaves out (see `parseOpenApi`) is logged with the reason. */
  private parse(document: unknown, serviceType: string, apiVersion: string): CatalogRoute[] {
    return parseOpenApi(document, (_path, reason) =>
      this.logger.warn(`Description ${serviceType}/${apiVersion}: a route is left out: ${reason}`),
    );
  }

  private async store(
    serviceType: string,
    apiVersion: string,
    document: unknown,
    routes: CatalogRoute[],
    source: OpenApiDocumentEntity['source'],
    announce = true,
  ): Promise<OpenApiDocumentEntity> {
    await this.documents.upsert(
      { serviceType, apiVersion, document: document as object, source, routeCount: routes.length },
      ['serviceType', 'apiVersion'],
    );
    this.routes.set(key(serviceType, apiVersion), routes);
    this.routeTableVersion += 1;
    if (announce) await this.changes.publish('catalog');
    return this.documents.findOneOrFail({
      where: { serviceType, apiVersion },
      select: { serviceType: true, apiVersion: true, source: true, routeCount: true, updatedAt: true },
    });
  }
}

function key(serviceType: string, apiVersion: string): string {
  return `${serviceType}/${apiVersion}`;
}

/** Fills `{Name}`/`{name}` (Radarr/radarr) and `{Version}`/`{version}` (V3/v3) in a source address. */
export function sourceUrl(template: string, serviceType: string, apiVersion: string): string {
  return template
    .replaceAll('{Name}', serviceType[0].toUpperCase() + serviceType.slice(1))
    .replaceAll('{name}', serviceType)
    .replaceAll('{Version}', apiVersion.toUpperCase())
    .replaceAll('{version}', apiVersion);
}

function toDto(doc: OpenApiDocumentEntity): OpenApiDocumentDto {
  return {
    serviceType: doc.serviceType,
    apiVersion: doc.apiVersion,
    source: doc.source,
    routes: doc.routeCount,
    updatedAt: doc.updatedAt.toISOString(),
  };
}
