import { ChangeDetectionStrategy, Component, computed, effect, inject, signal, untracked } from '@angular/core';
import { RouterLink } from '@angular/router';
import type { ProxyDto, ServiceReachabilityDto } from '@arrbiter/contracts';
import { Loadable } from '../../core/loadable';
import { AppsApiService } from '../apps/apps-api.service';
import { ProxiesApiService } from '../apps/proxies-api.service';
import { isLearning } from '../apps/proxy/learning';
import { ServicesApiService } from '../services/services-api.service';
import { TrafficChartComponent } from '../usage/traffic-chart.component';
import { UsageApiService } from '../usage/usage-api.service';
import { periodQuery, periodWords, UsagePeriod } from '../usage/usage-period';
import { UsagePeriodPickerComponent } from '../usage/usage-period-picker.component';
import { UsageTableComponent, UsageTableRow } from '../usage/usage-table.component';
import { WarningsApiService } from '../warnings/warnings-api.service';
import { UnauthorizedCallsComponent } from './unauthorized-calls.component';
import { CanDirective } from '../../core/can.directive';
import {
  describeError,
  EmptyStateComponent,
  LoadStateComponent,
  PageHeaderComponent,
  TimeComponent,
} from '@arrbiter/dashboard/ui';

const DAY = 86_400_000;
/** Apps listed under the traffic chart. */
const BUSIEST = 5;

/** At a glance: traffic, services and their reachability, apps, warnings of the last 24 h, learning proxies. */
@Component({
  selector: 'arb-home-page',
  imports: [
    CanDirective,
    EmptyStateComponent,
    LoadStateComponent,
    RouterLink,
    TimeComponent,
    TrafficChartComponent,
    UsagePeriodPickerComponent,
    UsageTableComponent,
    PageHeaderComponent,
    UnauthorizedCallsComponent,
  ],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './home.page.html',
  styles: `
    .tiles {
      display: grid;
      gap: 0.75rem;
      grid-template-columns: repeat(auto-fit, minmax(12rem, 1fr));
      margin-bottom: 1rem;
    }
    .tile {
      color: var(--text);
      text-decoration: none;
      display: flex;
      flex-wrap: wrap;
      align-items: baseline;
      gap: 0.375rem;
    }
    .tile:hover {
      border-color: var(--accent);
    }
    .n {
      font-size: 2rem;
      font-weight: 700;
      color: var(--accent);
    }
    .traffic,
    .first-client,
    .unauthorized {
      margin-bottom: 1rem;
    }
    .first-client h2 {
      margin-top: 0;
    }
    .head h2 {
      margin: 0;
    }
    .columns {
      display: grid;
      gap: 1rem;
      grid-template-columns: repeat(auto-fit, minmax(20rem, 1fr));
    }
  `,
})
export class HomePage {
  private readonly servicesApi = inject(ServicesApiService);
  private readonly appsApi = inject(AppsApiService);
  private readonly proxiesApi = inject(ProxiesApiService);
  private readonly warningsApi = inject(WarningsApiService);
  private readonly usageApi = inject(UsageApiService);

  protected readonly services = new Loadable(() => this.servicesApi.list());
  protected readonly apps = new Loadable(() => this.appsApi.listAll());
  protected readonly proxies = new Loadable<ProxyDto[]>(async () => {
    const apps = this.apps.value() ?? (await this.appsApi.listAll());
    return (await Promise.all(apps.map((a) => this.proxiesApi.listForApp(a.id)))).flat();
  });
  /** The newest 200 warnings: enough to count a day's worth on a sane setup. */
  protected readonly warnings = new Loadable(() => this.warningsApi.list({ limit: 200 }));
  protected readonly period = signal<UsagePeriod>('24h');
  protected readonly words = computed(() => periodWords(this.period()));
  protected readonly usage = new Loadable(() => this.usageApi.overview(periodQuery(this.period())));
  protected readonly busiest = computed(() =>
    (this.usage.value()?.apps ?? [])
      .slice(0, BUSIEST)
      .map((a): UsageTableRow => ({ ...a, key: a.appId, label: a.name, link: ['/apps', a.appId] })),
  );
  /** Calls refused with 401 in the last 24 h (the endpoint's default), per app and unknown app. */
  protected readonly unauthorized = new Loadable(() => this.usageApi.unauthorized({}));
  protected readonly reach = signal<Record<string, ServiceReachabilityDto | string>>({});

  protected readonly unreachable = computed(
    () => Object.values(this.reach()).filter((r) => typeof r !== 'string' && !r.reachable).length,
  );
  protected readonly activeApps = computed(() => (this.apps.value() ?? []).filter((a) => a.active).length);
  protected readonly learning = computed(() => (this.proxies.value() ?? []).filter((p) => isLearning(p.learningUntil)));
  protected readonly warnings24h = computed(() => {
    const page = this.warnings.value();
    if (!page) return null;
    const since = Date.now() - DAY;
    return page.items.filter((w) => Date.parse(w.lastSeen) >= since).length;
  });
  protected readonly warningsCapped = computed(() => {
    const page = this.warnings.value();
    return !!page?.nextCursor && page.items.every((w) => Date.parse(w.lastSeen) >= Date.now() - DAY);
  });

  constructor() {
    effect(() => {
      this.period();
      untracked(() => void this.usage.load());
    });
    void this.reload();
    void this.warnings.load();
    void this.unauthorized.load();
    void this.apps.load().then(() => this.proxies.load());
  }

  protected isString(value: unknown): value is string {
    return typeof value === 'string';
  }

  protected appName(id: string): string {
    return this.apps.value()?.find((a) => a.id === id)?.name ?? 'App';
  }

  protected serviceName(id: string): string {
    return this.services.value()?.find((s) => s.id === id)?.name ?? 'Service';
  }

  protected async reload(): Promise<void> {
    await this.services.load();
    for (const s of this.services.value() ?? []) {
      this.servicesApi
        .ping(s.id)
        .then((r) => this.reach.update((all) => ({ ...all, [s.id]: r })))
        .catch((error: unknown) => this.reach.update((all) => ({ ...all, [s.id]: describeError(error) })));
    }
  }
}
