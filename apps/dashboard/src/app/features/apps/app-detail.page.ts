import {
  ChangeDetectionStrategy,
  Component,
  computed,
  effect,
  inject,
  input,
  linkedSignal,
  signal,
} from '@angular/core';
import { Router, RouterLink } from '@angular/router';
import type { AppDto, ServiceDto } from '@arrbiter/contracts';
import { CanDirective } from '../../core/can.directive';
import { Loadable } from '../../core/loadable';
import { ServicesApiService } from '../services/services-api.service';
import { TemplatesApiService } from '../templates/templates-api.service';
import { AppFormComponent } from './app-form.component';
import { CloneAppDialogComponent } from './clone-app-dialog.component';
import { AppsApiService } from './apps-api.service';
import { ProxiesApiService } from './proxies-api.service';
import { isLearning } from './proxy/learning';
import { UnauthorizedCallsComponent } from '../home/unauthorized-calls.component';
import { UsageApiService } from '../usage/usage-api.service';
import {
  busyAction,
  ConfirmService,
  LoadStateComponent,
  PageHeaderComponent,
  TimeComponent,
} from '@arrbiter/dashboard/ui';

/** An app: its settings and its proxies, one per service. */
@Component({
  selector: 'arb-app-detail-page',
  imports: [
    CanDirective,
    LoadStateComponent,
    AppFormComponent,
    CloneAppDialogComponent,
    RouterLink,
    TimeComponent,
    PageHeaderComponent,
    UnauthorizedCallsComponent,
  ],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './app-detail.page.html',
  styles: `
    .crumbs {
      margin-bottom: 0.25rem;
    }
    .proxy-list {
      list-style: none;
      padding: 0;
      margin: 0 0 1rem;
    }
    .proxy-list li {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 0.5rem 0.75rem;
      padding: 0.625rem 0;
      border-bottom: 1px solid var(--border);
    }
    .proxy-name {
      font-weight: 600;
    }
    .unauthorized {
      margin-top: 1rem;
    }
  `,
})
export class AppDetailPage {
  private readonly appsApi = inject(AppsApiService);
  private readonly proxiesApi = inject(ProxiesApiService);
  private readonly servicesApi = inject(ServicesApiService);
  private readonly templatesApi = inject(TemplatesApiService);
  private readonly confirm = inject(ConfirmService);
  private readonly router = inject(Router);
  private readonly usageApi = inject(UsageApiService);

  readonly appId = input.required<string>();
  protected readonly app = new Loadable<AppDto>(() => this.appsApi.get(this.appId()));
  protected readonly proxies = new Loadable(() => this.proxiesApi.listForApp(this.appId()));
  /** This app's calls refused with 401 in the last 24 h. */
  protected readonly unauthorized = new Loadable(() => this.usageApi.unauthorized({ appId: this.appId() }));
  protected readonly services = new Loadable(() => this.servicesApi.list());
  protected readonly templates = new Loadable(() => this.templatesApi.list());
  protected readonly editing = signal(false);
  protected readonly action = busyAction();
  /** The service of the proxy to add: the only free one is chosen already. */
  protected readonly serviceId = linkedSignal(() => {
    const free = this.freeServices();
    return free.length === 1 ? free[0].id : '';
  });
  /** Whether the clone dialog is open. */
  protected readonly cloning = signal(false);
  /** The save-as-template form's name; null while the form is closed. */
  protected readonly templateName = signal<string | null>(null);
  protected readonly learning = isLearning;

  /** Services this app has no proxy for yet (one proxy per service per app). */
  protected readonly freeServices = computed(() => {
    const used = new Set((this.proxies.value() ?? []).map((p) => p.serviceId));
    return (this.services.value() ?? []).filter((s) => !used.has(s.id));
  });
  private readonly serviceById = computed(
    () => new Map<string, ServiceDto>((this.services.value() ?? []).map((s) => [s.id, s])),
  );

  constructor() {
    effect(() => {
      this.appId();
      void this.app.load();
      void this.proxies.load();
      void this.unauthorized.load();
    });
    void this.services.load();
    void this.templates.load();
  }

  protected serviceName(id: string): string {
    const s = this.serviceById().get(id);
    return s ? `${s.name} (${s.type})` : 'Service';
  }

  protected async addProxy(app: AppDto): Promise<void> {
    await this.action.run(async () => {
      const proxy = await this.proxiesApi.create(app.id, this.serviceId());
      await this.router.navigate(['/apps', app.id, 'proxies', proxy.id, 'connection']);
    });
  }

  /** Shows the new app. */
  protected async openClone(copy: AppDto): Promise<void> {
    this.cloning.set(false);
    await this.router.navigate(['/apps', copy.id]);
  }

  protected async saveAsTemplate(app: AppDto): Promise<void> {
    const name = this.templateName()?.trim();
    if (!name) return;
    const outcome = await this.action.run(
      () => this.appsApi.saveAsTemplate(app.id, { name }),
      (template) => `Saved as template “${template.name}”.`,
    );
    if (outcome.ok) this.templateName.set(null);
  }

  protected async remove(app: AppDto): Promise<void> {
    const ok = await this.confirm.ask({
      title: `Delete ${app.name}?`,
      message: 'Its proxies stop working at once and their keys are gone.',
      confirmLabel: 'Delete app',
      danger: true,
    });
    if (!ok) return;
    await this.action.run(async () => {
      await this.appsApi.remove(app.id);
      await this.router.navigate(['/apps']);
    });
  }
}
