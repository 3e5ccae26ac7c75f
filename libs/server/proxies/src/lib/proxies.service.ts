import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import type {
  AllowlistMap,
  AllowlistResponse,
  ProxyConnectionDto,
  ProxyDto,
  RotateKeyResponse,
} from '@arrbiter/contracts';
import { AppEntity, AppsService } from '@arrbiter/server/apps';
import { effectiveAllowlist, overrideProblems } from '@arrbiter/server/catalog';
import { AppConfig } from '@arrbiter/server/config';
import { generateProxyKey, keyDigest, SecretBox } from '@arrbiter/server/crypto';
import { ChangeBus } from '@arrbiter/server/database';
import { isUniqueViolation } from '@arrbiter/server/http';
import { ServiceEntity } from '@arrbiter/server/services';
import { DataSource, Repository } from 'typeorm';
import { CreateProxyDto, ProxyConfigDto } from './dto/proxy.dto';
import { ProxyEntity } from './entities/proxy.entity';

/** The purpose a proxy key is encrypted for (bound into the ciphertext). */
export const PROXY_KEY_PURPOSE = 'proxy-key';

export function toProxyDto(proxy: ProxyEntity): ProxyDto {
  return {
    id: proxy.id,
    appId: proxy.appId,
    serviceId: proxy.serviceId,
    active: proxy.active,
    createdAt: proxy.createdAt.toISOString(),
    updatedAt: proxy.updatedAt.toISOString(),
  };
}

@Injectable()
export class ProxiesService {
  private readonly proxies: Repository<ProxyEntity>;
  private readonly services: Repository<ServiceEntity>;

  constructor(
    dataSource: DataSource,
    private readonly apps: AppsService,
    private readonly secrets: SecretBox,
    private readonly config: AppConfig,
    private readonly changes: ChangeBus,
  ) {
    this.proxies = dataSource.getRepository(ProxyEntity);
    this.services = dataSource.getRepository(ServiceEntity);
  }

  async listForApp(appId: string): Promise<ProxyDto[]> {
    await this.apps.find(appId);
    return (await this.proxies.find({ where: { appId }, order: { createdAt: 'ASC' } })).map(toProxyDto);
  }

  /** Gives an app access to a service with a new key (one proxy per service per app). */
  async create(appId: string, dto: CreateProxyDto): Promise<ProxyConnectionDto> {
    const app = await this.apps.find(appId);
    if (!(await this.services.existsBy({ id: dto.serviceId }))) throw new NotFoundException('No such service');
    const key = generateProxyKey();
    let proxy: ProxyEntity;
    try {
      proxy = await this.proxies.save(
        this.proxies.create({
          appId,
          serviceId: dto.serviceId,
          active: true,
          keyDigest: keyDigest(key),
          keyCiphertext: this.secrets.encrypt(key, PROXY_KEY_PURPOSE),
          overrides: {},
        }),
      );
    } catch (error) {
      if (isUniqueViolation(error))
        throw new ConflictException(`The app "${app.name}" already has a proxy for this service`);
      throw error;
    }
    await this.changes.publish('proxies', proxy.id);
    return this.connection(proxy, app, key);
  }

  /** Connection details: the key and the Proxy URL a client needs. */
  async get(id: string): Promise<ProxyConnectionDto> {
    const proxy = await this.find(id);
    return this.connection(
      proxy,
      await this.apps.find(proxy.appId),
      this.secrets.decrypt(proxy.keyCiphertext, PROXY_KEY_PURPOSE),
    );
  }

  async setActive(id: string, active: boolean): Promise<ProxyDto> {
    const proxy = await this.find(id);
    proxy.active = active;
    await this.proxies.save(proxy);
    await this.changes.publish('proxies', id);
    return toProxyDto(proxy);
  }

  /** A new key; the old one stops working before this returns. */
  async rotateKey(id: string): Promise<RotateKeyResponse> {
    await this.find(id);
    const key = generateProxyKey();
    await this.proxies.update(
      { id },
      { keyDigest: keyDigest(key), keyCiphertext: this.secrets.encrypt(key, PROXY_KEY_PURPOSE) },
    );
    await this.changes.publish('proxies', id);
    return { key };
  }

  async remove(id: string): Promise<void> {
    await this.find(id);
    await this.proxies.delete({ id });
    await this.changes.publish('proxies', id);
  }

  /** Saves the overrides and the active state together; the next request sees them. */
  async saveConfig(id: string, dto: ProxyConfigDto): Promise<AllowlistResponse> {
    const problems = overrideProblems(dto.overrides);
    if (problems.length > 0) throw new BadRequestException(problems);
    const proxy = await this.find(id);
    proxy.overrides = normalise(dto.overrides);
    proxy.active = dto.active;
    await this.proxies.save(proxy);
    await this.changes.publish('proxies', id);
    return this.allowlistOf(proxy);
  }

  async allowlist(id: string): Promise<AllowlistResponse> {
    return this.allowlistOf(await this.find(id));
  }

  async find(id: string): Promise<ProxyEntity> {
    const proxy = await this.proxies.findOneBy({ id });
    if (!proxy) throw new NotFoundException('No such proxy');
    return proxy;
  }

  private allowlistOf(proxy: ProxyEntity): AllowlistResponse {
    // Template blocks arrive with templates; until then every proxy inherits nothing.
    const template: AllowlistMap = {};
    return { template, overrides: proxy.overrides, effective: effectiveAllowlist(template, proxy.overrides) };
  }

  private connection(proxy: ProxyEntity, app: AppEntity, key: string): ProxyConnectionDto {
    return { ...toProxyDto(proxy), key, proxyUrl: `${this.config.publicUrl}/proxy/${app.slug}` };
  }
}

/** Methods sorted, paths in a stable order: equal configurations store equal JSON. */
function normalise(overrides: AllowlistMap): AllowlistMap {
  return Object.fromEntries(
    Object.entries(overrides)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([path, methods]) => [path, [...methods].sort()]),
  );
}
