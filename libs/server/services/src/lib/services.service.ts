import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { ServiceDto, ServiceReachabilityDto } from '@arrbiter/contracts';
import { CatalogService } from '@arrbiter/server/catalog';
import { SecretBox } from '@arrbiter/server/crypto';
import { Clock } from '@arrbiter/server/config';
import { ChangeBus } from '@arrbiter/server/database';
import { ChangesService } from '@arrbiter/server/history';
import { isUniqueViolation } from '@arrbiter/server/http';
import { In, Repository } from 'typeorm';
import { checkBaseUrl } from './base-url';
import { CreateServiceDto, UpdateServiceDto } from './dto/create-service.dto';
import { ServiceEntity } from './entities/service.entity';
import { Discovery, MAX_OPENAPI_BYTES, ServarrClient } from './servarr-client';
import { ServiceUsers } from './service-users';

/** A service as the other domains read it (the entity class stays inside this lib). */
export type ServiceRow = Pick<ServiceEntity, keyof ServiceEntity>;

/** The purpose an upstream key is encrypted for (bound into the ciphertext). */
export const SERVICE_KEY_PURPOSE = 'service-api-key';

export function toServiceDto(service: ServiceEntity): ServiceDto {
  return {
    id: service.id,
    name: service.name,
    type: service.type,
    baseUrl: service.baseUrl,
    apiVersions: service.apiVersions,
    upstreamVersion: service.upstreamVersion,
    createdAt: service.createdAt.toISOString(),
    updatedAt: service.updatedAt.toISOString(),
  };
}

/** Upstream services: registration, discovery, their encrypted keys, and reads for the other domains. */
@Injectable()
export class ServicesService {
  constructor(
    @InjectRepository(ServiceEntity) private readonly serviceRepository: Repository<ServiceEntity>,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly users: ServiceUsers,
    private readonly client: ServarrClient,
    private readonly catalog: CatalogService,
    private readonly secrets: SecretBox,
    private readonly changes: ChangeBus,
    private readonly audit: ChangesService,
    private readonly clock: Clock,
  ) {}

  /** The `service` repository, inside the caller's transaction when there is one. */
  private get services(): Repository<ServiceEntity> {
    return this.txHost.tx.withRepository(this.serviceRepository);
  }

  /** Every service (for the proxy's in-memory state): one query. */
  all(): Promise<ServiceRow[]> {
    return this.services.find();
  }

  /** The services with these ids, by id (unknown ids are left out): one query. */
  async byIds(ids: readonly string[]): Promise<Map<string, ServiceRow>> {
    if (ids.length === 0) return new Map();
    const rows = await this.services.findBy({ id: In([...new Set(ids)]) });
    return new Map(rows.map((row) => [row.id, row]));
  }

  async list(): Promise<ServiceDto[]> {
    return (await this.services.find({ order: { name: 'ASC', createdAt: 'ASC' } })).map(toServiceDto);
  }

  async get(id: string): Promise<ServiceDto> {
    return toServiceDto(await this.find(id));
  }

  /** Registers an upstream once it has answered as a Servarr with this key; nothing is stored otherwise. */
  async create(dto: CreateServiceDto, actor: string): Promise<ServiceDto> {
    const baseUrl = this.baseUrl(dto.baseUrl);
    const discovery = await this.client.discover(baseUrl, dto.apiKey);
    const saved = await this.txHost.withTransaction(() =>
      this.createInTransaction({ baseUrl, apiKey: dto.apiKey, discovery }, actor),
    );
    await this.afterWrite(saved, dto.apiKey);
    return toServiceDto(saved);
  }

  /**
   * Stores a service that `discover` has found (`baseUrl` normalised by `checkBaseUrl`) with its
   * recent change, in the caller's transaction; the caller calls `afterWrite` once it has committed.
   */
  async createInTransaction(
    { baseUrl, apiKey, discovery }: { baseUrl: string; apiKey: string; discovery: Discovery },
    actor: string,
  ): Promise<ServiceRow> {
    try {
      return await this.txHost.withTransaction(async () => {
        const repository = this.services;
        const service = await repository.save(
          repository.create({
            ...this.fields(discovery),
            baseUrl,
            apiKeyCiphertext: this.secrets.encrypt(apiKey, SERVICE_KEY_PURPOSE),
          }),
        );
        await this.record(
          actor,
          'service.created',
          service,
          `${service.type} "${service.name}" at ${baseUrl} registered (API ${service.apiVersions.join(', ')})`,
        );
        return service;
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictException(`${baseUrl} is already registered`);
      throw error;
    }
  }

  /** Changes the address or key; the upstream is discovered again and must still answer. */
  async update(id: string, dto: UpdateServiceDto, actor: string): Promise<ServiceDto> {
    const service = await this.find(id);
    const baseUrl = dto.baseUrl === undefined ? service.baseUrl : this.baseUrl(dto.baseUrl);
    const apiKey = dto.apiKey ?? this.apiKeyOf(service);
    const discovery = await this.client.discover(baseUrl, apiKey);
    if (discovery.type !== service.type) {
      throw new ConflictException(
        `${baseUrl} is a ${discovery.type}, but this service is a ${service.type}: register it as a new service`,
      );
    }
    Object.assign(service, this.fields(discovery), { baseUrl });
    if (dto.apiKey !== undefined) service.apiKeyCiphertext = this.secrets.encrypt(dto.apiKey, SERVICE_KEY_PURPOSE);
    const changed = [
      ...(dto.baseUrl !== undefined ? [`base URL ${baseUrl}`] : []),
      ...(dto.apiKey !== undefined ? ['API key replaced'] : []),
    ];
    try {
      await this.txHost.withTransaction(async () => {
        await this.services.save(service);
        await this.record(
          actor,
          'service.updated',
          service,
          `${service.type} "${service.name}": ${changed.length > 0 ? changed.join(', ') : 'discovered again'}`,
        );
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictException(`${baseUrl} is already registered`);
      throw error;
    }
    await this.afterWrite(service, apiKey);
    return toServiceDto(service);
  }

  /**
   * Replaces a service's key with one that `discover` has accepted (same type), with its recent change,
   * in the caller's transaction; the caller calls `afterWrite` once it has committed.
   */
  async replaceKeyInTransaction(
    id: string,
    { apiKey, discovery }: { apiKey: string; discovery: Discovery },
    actor: string,
  ): Promise<ServiceRow> {
    return this.txHost.withTransaction(async () => {
      const service = await this.find(id);
      if (discovery.type !== service.type) {
        throw new ConflictException(
          `${service.baseUrl} is now a ${discovery.type}, but this service is a ${service.type}: register it as a new service`,
        );
      }
      Object.assign(service, this.fields(discovery), {
        apiKeyCiphertext: this.secrets.encrypt(apiKey, SERVICE_KEY_PURPOSE),
      });
      await this.services.save(service);
      await this.record(actor, 'service.updated', service, `${service.type} "${service.name}": API key replaced`);
      return service;
    });
  }

  /**
   * After a committed write: the service type's OpenAPI descriptions (fetched once per type and
   * version; failures are logged), then the in-memory state.
   */
  async afterWrite(service: ServiceRow, apiKey: string, publish = true): Promise<void> {
    await this.fetchCatalog(service, apiKey);
    if (publish) await this.changes.publish('services');
  }

  /** Asks the upstream at a normalised base URL who it is, with this key (422 / 502 when it cannot say). */
  discover(baseUrl: string, apiKey: string): Promise<Discovery> {
    return this.client.discover(baseUrl, apiKey);
  }

  /** The upstream's own key, decrypted (for an export with secrets and for comparing a document's key). */
  apiKeyOf(service: Pick<ServiceRow, 'apiKeyCiphertext'>): string {
    return this.secrets.decrypt(service.apiKeyCiphertext, SERVICE_KEY_PURPOSE);
  }

  /** Deletes a service that no proxy uses; otherwise 409 naming the apps that use it. */
  async remove(id: string, actor: string): Promise<void> {
    await this.txHost.withTransaction(() => this.removeInTransaction(id, actor));
    await this.changes.publish('services');
  }

  /** Deletes a service that no proxy uses (409 otherwise), in the caller's transaction; the caller publishes. */
  async removeInTransaction(id: string, actor: string): Promise<void> {
    const service = await this.find(id);
    const users = await this.users.appNamesOf(id);
    if (users.length > 0) {
      throw new ConflictException(
        `The service ${service.baseUrl} is used by the proxies of: ${users.join(', ')}. Remove those proxies first.`,
      );
    }
    await this.txHost.withTransaction(async () => {
      await this.services.delete({ id });
      await this.record(
        actor,
        'service.deleted',
        service,
        `${service.type} "${service.name}" at ${service.baseUrl} deleted`,
      );
    });
  }

  /** Whether the upstream answers its `/ping` now. */
  async ping(id: string): Promise<ServiceReachabilityDto> {
    const service = await this.find(id);
    return { ...(await this.client.ping(service.baseUrl)), checkedAt: this.clock.date().toISOString() };
  }

  private record(actor: string, action: string, service: ServiceEntity, summary: string): Promise<void> {
    return this.audit.record({
      actor,
      action,
      objectType: 'service',
      objectId: service.id,
      objectName: service.name,
      summary,
    });
  }

  /** The service, or 404. */
  async find(id: string): Promise<ServiceRow> {
    const service = await this.services.findOneBy({ id });
    if (!service) throw new NotFoundException('No such service');
    return service;
  }

  private baseUrl(value: string): string {
    const check = checkBaseUrl(value);
    if (!check.ok) throw new BadRequestException([check.problem]);
    return check.url;
  }

  private fields(discovery: Discovery): Pick<ServiceEntity, 'name' | 'type' | 'apiVersions' | 'upstreamVersion'> {
    return {
      name: discovery.name,
      type: discovery.type,
      apiVersions: discovery.apiVersions,
      upstreamVersion: discovery.upstreamVersion,
    };
  }

  private async fetchCatalog(service: ServiceRow, apiKey: string): Promise<void> {
    await this.catalog.ensure(service.type, service.apiVersions, async (version) => {
      const { status, body } = await this.client.getJson(
        service.baseUrl,
        `/api/${version}/openapi.json`,
        apiKey,
        MAX_OPENAPI_BYTES,
      );
      return status === 200 ? body : undefined;
    });
  }
}
