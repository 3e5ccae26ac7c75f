import {
  ChangeDetectionStrategy,
  Component,
  computed,
  effect,
  ElementRef,
  inject,
  input,
  linkedSignal,
  signal,
  untracked,
  viewChild,
} from '@angular/core';
import { Router, RouterLink } from '@angular/router';
import type { ClientInstructionsDto, ConnectClientResponse, KnownClientDto, ServiceDto } from '@arrbiter/contracts';
import { CanDirective } from '../../core/can.directive';
import { Loadable } from '../../core/loadable';
import { ProxiesApiService } from '../apps/proxies-api.service';
import { RecentCallsComponent } from '../apps/proxy/recent-calls.component';
import { KnownClientsApiService } from '../known-clients/known-clients-api.service';
import { plural, releaseUrl, serviceTypeName } from '../known-clients/known-clients';
import { ServiceFormComponent } from '../services/service-form.component';
import { ServicesApiService } from '../services/services-api.service';
import { TemplatesApiService } from '../templates/templates-api.service';
import { ClientInstructionsComponent } from './client-instructions.component';
import { ConnectApiService } from './connect-api.service';
import {
  CONNECT_STEPS,
  ConnectStep,
  clientTypes,
  idList,
  initials,
  matchingServices,
  ReviewCall,
  reviewGroups,
  searchClients,
  sensitiveIncludes,
  STEP_LABELS,
  stepOf,
  tickKey,
  withoutIt,
} from './connect-review';
import {
  busyAction,
  EmptyStateComponent,
  LoadStateComponent,
  MethodBadgeComponent,
  PageHeaderComponent,
} from '@arrbiter/dashboard/ui';

/** A proxy of the connected app, with what to type into the client for it. */
interface DoneProxy {
  id: string;
  serviceName: string;
  serviceType: string;
  instructions: ClientInstructionsDto | null;
}

/**
 * Connect a client in one flow: pick it from the catalogue, pick the services it will use, review what
 * it will be granted (sensitive calls only when ticked), create; then what to type into the client and
 * its first calls, live. The URL holds the step, the client and the services.
 */
@Component({
  selector: 'arb-connect-page',
  imports: [
    CanDirective,
    ClientInstructionsComponent,
    EmptyStateComponent,
    LoadStateComponent,
    MethodBadgeComponent,
    PageHeaderComponent,
    RecentCallsComponent,
    RouterLink,
    ServiceFormComponent,
  ],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './connect.page.html',
  styleUrl: './connect.page.scss',
})
export class ConnectPage {
  private readonly router = inject(Router);
  private readonly knownClientsApi = inject(KnownClientsApiService);
  private readonly servicesApi = inject(ServicesApiService);
  private readonly templatesApi = inject(TemplatesApiService);
  private readonly proxiesApi = inject(ProxiesApiService);
  private readonly api = inject(ConnectApiService);

  /** From the query string. */
  readonly step = input<string>();
  readonly client = input<string>();
  readonly services = input<string>();
  readonly app = input<string>();

  protected readonly steps = CONNECT_STEPS;
  protected readonly labels = STEP_LABELS;
  protected readonly initials = initials;
  protected readonly clientTypes = clientTypes;
  protected readonly typeName = serviceTypeName;
  protected readonly tickKey = tickKey;
  protected readonly releaseUrl = releaseUrl;
  protected readonly plural = plural;

  protected readonly catalogue = new Loadable(() => this.knownClientsApi.list());
  protected readonly known = new Loadable<KnownClientDto>(() => this.knownClientsApi.get(this.client() ?? ''));
  protected readonly allServices = new Loadable(() => this.servicesApi.list());
  protected readonly templates = new Loadable(() => this.templatesApi.list());

  protected readonly query = signal('');
  protected readonly found = computed(() => searchClients(this.catalogue.value() ?? [], this.query()));
  /** The chosen client, once its calls are loaded (and only the one the URL names). */
  protected readonly chosen = computed(() => {
    const k = this.known.value();
    return k && k.id === this.client() ? k : null;
  });
  protected readonly matching = computed(() => {
    const client = this.chosen();
    return client ? matchingServices(client, this.allServices.value() ?? []) : [];
  });
  /** The ticked services: the URL's, else the only matching one. */
  protected readonly picked = linkedSignal(() => {
    const matching = this.matching();
    const fromUrl = idList(this.services()).filter((id) => matching.some((s) => s.id === id));
    if (fromUrl.length > 0) return fromUrl;
    return matching.length === 1 ? [matching[0].id] : [];
  });
  protected readonly pickedServices = computed(() =>
    this.picked()
      .map((id) => this.matching().find((s) => s.id === id))
      .filter((s): s is ServiceDto => !!s),
  );
  /** The step shown: the URL's, unless what it needs is missing. */
  protected readonly current = computed<ConnectStep>(() => {
    const step = stepOf(this.step());
    if (step === 'done') return this.app() ? 'done' : 'client';
    if (step === 'client' || !this.client()) return 'client';
    if (step === 'review' && idList(this.services()).length === 0) return 'services';
    return step;
  });
  protected readonly stepIndex = computed(() => CONNECT_STEPS.indexOf(this.current()));

  /** Ticked sensitive calls, by `tickKey`. */
  protected readonly ticked = signal<ReadonlySet<string>>(new Set());
  protected readonly review = computed(() => {
    const client = this.chosen();
    if (!client) return [];
    return this.pickedServices().map((service) => ({
      service,
      groups: reviewGroups(client.services[service.type] ?? []),
    }));
  });
  protected readonly addingService = signal(false);
  protected readonly templateId = signal('');
  protected readonly name = signal('');
  protected readonly slug = signal('');
  protected readonly creating = busyAction();

  /** The create call's answer (keys and instructions), kept while the page stays open. */
  protected readonly result = signal<ConnectClientResponse | null>(null);
  /** The done step after a reload: the app's proxies and their instructions, keys as the server shows them. */
  protected readonly reloaded = new Loadable<DoneProxy[]>(async () => {
    const appId = this.app() ?? '';
    const proxies = await this.proxiesApi.listForApp(appId);
    const services = this.allServices.value() ?? (await this.servicesApi.list());
    return Promise.all(
      proxies.map(async (p) => {
        const service = services.find((s) => s.id === p.serviceId);
        return {
          id: p.id,
          serviceName: service?.name ?? 'Service',
          serviceType: service?.type ?? '',
          instructions: await this.api.instructions(p.id, this.client()).catch(() => null),
        };
      }),
    );
  });
  protected readonly done = computed<DoneProxy[]>(() => {
    const result = this.result();
    if (result && result.app.id === this.app()) {
      return result.proxies.map((p) => ({
        id: p.id,
        serviceName: p.serviceName,
        serviceType: p.serviceType,
        instructions: result.instructions.find((i) => i.proxyId === p.id) ?? null,
      }));
    }
    return this.reloaded.value() ?? [];
  });

  private readonly heading = viewChild<ElementRef<HTMLElement>>('heading');
  private focusedOnce = false;

  constructor() {
    void this.catalogue.load();
    void this.allServices.load();
    effect(() => {
      const id = this.client();
      untracked(() => {
        if (id && this.known.value()?.id !== id) void this.known.load();
      });
    });
    effect(() => {
      const step = this.current();
      const app = this.app();
      untracked(() => {
        if (step === 'review' && !this.templates.value()) void this.templates.load();
        if (step === 'done' && app && this.result()?.app.id !== app) void this.reloaded.load();
      });
    });
    // A new step moves the focus to its heading (not on the first page load), so that a screen reader says where it is.
    effect(() => {
      const heading = this.heading();
      if (!heading) return;
      if (this.focusedOnce) heading.nativeElement.focus();
      this.focusedOnce = true;
    });
  }

  protected go(step: ConnectStep, extra: Record<string, string | null> = {}): Promise<boolean> {
    return this.router.navigate([], {
      queryParams: { step, ...extra },
      queryParamsHandling: 'merge',
    });
  }

  protected toggleService(id: string, on: boolean): void {
    this.picked.update((ids) => (on ? [...new Set([...ids, id])] : ids.filter((i) => i !== id)));
  }

  protected async serviceAdded(service: ServiceDto): Promise<void> {
    this.addingService.set(false);
    await this.allServices.load();
    if (this.matching().some((s) => s.id === service.id)) this.toggleService(service.id, true);
  }

  protected toReview(): Promise<boolean> {
    return this.go('review', { services: this.picked().join(',') });
  }

  protected tick(serviceId: string, call: ReviewCall, on: boolean): void {
    const key = tickKey(serviceId, call);
    this.ticked.update((set) => {
      const next = new Set(set);
      if (on) next.add(key);
      else next.delete(key);
      return next;
    });
  }

  protected without(call: ReviewCall): string {
    return withoutIt(this.chosen()?.name ?? 'the client', call);
  }

  protected countSensitive(groups: ReturnType<typeof reviewGroups>): number {
    return groups.reduce((n, g) => n + g.calls.filter((c) => c.risk.sensitive).length, 0);
  }

  protected countIncluded(serviceId: string, groups: ReturnType<typeof reviewGroups>): number {
    const ticked = this.ticked();
    return groups.reduce(
      (n, g) => n + g.calls.filter((c) => !c.risk.sensitive || ticked.has(tickKey(serviceId, c))).length,
      0,
    );
  }

  protected async create(): Promise<void> {
    const client = this.chosen();
    if (!client) return;
    const services = this.pickedServices();
    const outcome = await this.creating.run(() =>
      this.api.connect(client.id, {
        serviceIds: services.map((s) => s.id),
        templateId: this.templateId() || null,
        include: { sensitive: sensitiveIncludes(client, this.picked(), services, this.ticked()) },
        ...(this.name().trim() ? { name: this.name().trim() } : {}),
        ...(this.slug().trim() ? { slug: this.slug().trim() } : {}),
      }),
    );
    if (!outcome.ok) return;
    this.result.set(outcome.value);
    await this.go('done', { app: outcome.value.app.id });
  }

  protected async finish(): Promise<void> {
    const app = this.app();
    if (app) await this.router.navigate(['/apps', app]);
  }
}
