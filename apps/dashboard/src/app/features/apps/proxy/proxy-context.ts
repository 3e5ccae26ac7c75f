import { computed, inject, Injectable, signal } from '@angular/core';
import type { AppDto, ProxyDetailsDto, ProxyDto, ServiceDto } from '@arrbiter/contracts';
import { Loadable } from '../../../core/loadable';
import { ServicesApiService } from '../../services/services-api.service';
import { AppsApiService } from '../apps-api.service';
import { ProxiesApiService } from '../proxies-api.service';

/** The proxy a proxy page shows, shared by its tabs (provided per proxy route). */
@Injectable()
export class ProxyContext {
  private readonly proxiesApi = inject(ProxiesApiService);
  private readonly appsApi = inject(AppsApiService);
  private readonly servicesApi = inject(ServicesApiService);

  readonly proxyId = signal('');
  readonly appId = signal('');
  readonly proxy = new Loadable<ProxyDetailsDto>(() => this.proxiesApi.get(this.proxyId()));
  readonly app = new Loadable<AppDto>(() => this.appsApi.get(this.appId()));
  readonly service = new Loadable<ServiceDto>(() => this.servicesApi.get(this.proxy.value()?.serviceId ?? ''));
  readonly title = computed(() => {
    const service = this.service.value();
    return service ? `${service.name} (${service.type})` : 'Proxy';
  });

  async open(appId: string, proxyId: string): Promise<void> {
    this.appId.set(appId);
    this.proxyId.set(proxyId);
    void this.app.load();
    await this.proxy.load();
    if (this.proxy.value()) await this.service.load();
  }

  /** Merges a write's answer (a ProxyDto has no key or URL) into the loaded proxy. */
  update(proxy: Partial<ProxyDto> & { key?: string }): void {
    const current = this.proxy.value();
    if (current) this.proxy.set({ ...current, ...proxy });
  }
}
