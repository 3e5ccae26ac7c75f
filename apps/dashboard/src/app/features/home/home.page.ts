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
import { describeError, LoadStateComponent, PageHeaderComponent, TimeComponent } from '@arrbiter/dashboard/ui';

const DAY = 86_400_000;
/** Apps listed under the traffic chart. */
const BUSIEST = 5;

/** At a glance: traffic, services and their reachability, apps, warnings of the last 24 h, learning proxies. */
@Component({
  selector: 'arb-home-page',
  imports: [
    LoadStateComponent,
    RouterLink,
    TimeComponent,
    TrafficChartComponent,
    UsagePeriodPickerComponent,
    UsageTableComponent,
    PageHeaderComponent,
  ],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <arb-page-header title="Home" />
    <div class="tiles">
      <a class="card pad tile" routerLink="/services">
        <span class="n">{{ services.value()?.length ?? '–' }}</span> services
        @if (unreachable() > 0) {
          <span class="badge danger">{{ unreachable() }} unreachable</span>
        }
      </a>
      <a class="card pad tile" routerLink="/apps">
        <span class="n">{{ apps.value()?.length ?? '–' }}</span> apps
        <span class="hint">{{ activeApps() }} active</span>
      </a>
      <a class="card pad tile" routerLink="/warnings" [queryParams]="{ status: 'open' }">
        <span class="n" data-testid="warnings-24h">{{ warnings24h() ?? '–' }}</span> warnings in the last 24 h
        @if (warningsCapped()) {
          <span class="hint">(at least)</span>
        }
      </a>
      <a class="card pad tile" routerLink="/warnings">
        <span class="n">{{ learning().length }}</span> proxies learning
      </a>
    </div>

    <section class="card pad traffic" aria-labelledby="home-traffic">
      <div class="row head">
        <h2 id="home-traffic" class="grow">Traffic of all proxies</h2>
        <arb-usage-period-picker name="home-period" legend="Traffic period" [(value)]="period" />
      </div>
      <arb-load-state [loading]="usage.loading()" [error]="usage.error()" (retry)="usage.load()" />
      @if (usage.value(); as u) {
        <arb-traffic-chart [buckets]="u.buckets" [period]="period()" />
        @if (busiest().length > 0) {
          <arb-usage-table [caption]="'Busiest apps in ' + words()" heading="App" [rows]="busiest()" />
        }
      }
    </section>

    <div class="columns">
      <section class="card pad" aria-labelledby="home-services">
        <h2 id="home-services">Services</h2>
        <arb-load-state [loading]="services.loading()" [error]="services.error()" (retry)="reload()" />
        @if (services.value()?.length === 0) {
          <p class="muted">No services yet. <a routerLink="/services">Add one</a>.</p>
        }
        <ul class="plain">
          @for (s of services.value() ?? []; track s.id) {
            @let r = reach()[s.id];
            <li class="row">
              <strong>{{ s.name }}</strong> <span class="badge accent">{{ s.type }}</span>
              <span class="grow"></span>
              @if (r === undefined) {
                <span class="muted">Checking…</span>
              } @else if (isString(r)) {
                <span class="badge" [title]="r">Unknown</span>
              } @else if (r.reachable) {
                <span class="badge ok">Reachable · {{ r.latencyMs }} ms</span>
              } @else {
                <span class="badge danger" [title]="r.error ?? ''">Unreachable</span>
              }
            </li>
          }
        </ul>
      </section>

      <section class="card pad" aria-labelledby="home-learning">
        <h2 id="home-learning">Proxies in learning mode</h2>
        <arb-load-state [loading]="proxies.loading()" [error]="proxies.error()" (retry)="proxies.load()" />
        @if (proxies.ready() && learning().length === 0) {
          <p class="muted">None. Start learning mode on a proxy to find out what a client needs.</p>
        }
        <ul class="plain">
          @for (p of learning(); track p.id) {
            <li class="row">
              <a [routerLink]="['/apps', p.appId, 'proxies', p.id]"
                >{{ appName(p.appId) }} › {{ serviceName(p.serviceId) }}</a
              >
              <span class="grow"></span>
              <span class="hint">until <arb-time [value]="p.learningUntil!" /></span>
            </li>
          }
        </ul>
      </section>
    </div>
    <arb-load-state [loading]="false" [error]="warnings.error()" (retry)="warnings.load()" />
  `,
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
    .traffic {
      margin-bottom: 1rem;
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
