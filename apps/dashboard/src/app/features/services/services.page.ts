import { ChangeDetectionStrategy, Component, inject, OnInit, signal } from '@angular/core';
import type { ServiceDto, ServiceReachabilityDto } from '@arrbiter/contracts';
import { CanDirective } from '../../core/can.directive';
import { Loadable } from '../../core/loadable';
import { ServiceFormComponent } from './service-form.component';
import { ServicesApiService } from './services-api.service';
import {
  busyAction,
  ConfirmService,
  DATA_TABLE,
  describeError,
  EmptyStateComponent,
  LoadStateComponent,
  PageHeaderComponent,
  TimeComponent,
} from '@arrbiter/dashboard/ui';

export type Reachability =
  | { state: 'checking' }
  | { state: 'done'; result: ServiceReachabilityDto }
  | { state: 'failed'; message: string };

@Component({
  selector: 'arb-services-page',
  imports: [
    CanDirective,
    LoadStateComponent,
    ServiceFormComponent,
    TimeComponent,
    PageHeaderComponent,
    EmptyStateComponent,
    DATA_TABLE,
  ],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <arb-page-header
      title="Services"
      description="The Servarr instances Arrbiter guards. Their API keys never leave Arrbiter."
    >
      @if (editing() === null) {
        <button type="button" class="primary" *arbCan="'editor'" (click)="editing.set('new')">Add service</button>
      }
    </arb-page-header>

    @if (editing() === 'new') {
      <arb-service-form (saved)="created($event)" (closed)="editing.set(null)" />
    }
    @if (removing.error(); as m) {
      <p class="error" role="alert">{{ m }}</p>
    }

    <arb-load-state [loading]="services.loading()" [error]="services.error()" (retry)="reload()" />
    @if (services.value(); as list) {
      @if (list.length === 0) {
        <arb-empty-state card message="No services yet. Add the first one with its base URL and API key." />
      } @else {
        <arb-data-table
          class="card table-wrap"
          [rows]="list"
          [trackBy]="byId"
          [rowTestId]="testId"
          [detailOpen]="isEditing"
        >
          <ng-template arbColumn="Name" [of]="list" let-service>
            <strong>{{ service.name }}</strong
            >&ngsp;<span class="badge accent">{{ service.type }}</span>
            <div class="hint">version {{ service.upstreamVersion }}</div>
          </ng-template>
          <ng-template arbColumn="Base URL" [of]="list" let-service>
            <code>{{ service.baseUrl }}</code>
          </ng-template>
          <ng-template arbColumn="API" [of]="list" let-service>{{ service.apiVersions.join(', ') }}</ng-template>
          <ng-template arbColumn="Reachability" [of]="list" let-service>
            @switch (reach()[service.id]?.state) {
              @case ('checking') {
                <span class="muted">Checking…</span>
              }
              @case ('done') {
                @let r = $any(reach()[service.id]).result;
                @if (r.reachable) {
                  <span class="badge ok">Reachable</span>
                  <span class="hint">{{ r.latencyMs }} ms</span>
                } @else {
                  <span class="badge danger">Unreachable</span>
                  <div class="hint">{{ r.error }} · <arb-time [value]="r.checkedAt" /></div>
                }
              }
              @case ('failed') {
                <span class="badge">Unknown</span>
                <div class="hint">{{ $any(reach()[service.id]).message }}</div>
              }
            }
            &ngsp;<button type="button" class="link small" (click)="ping(service)">Check</button>
          </ng-template>
          <ng-template arbColumn="Actions" hiddenHeader cellClass="actions" [of]="list" let-service>
            <ng-container *arbCan="'editor'">
              <button type="button" class="small" (click)="editing.set(service.id)">Edit</button>
              <button type="button" class="small danger" (click)="remove(service)">Delete</button>
            </ng-container>
          </ng-template>
          <ng-template arbRowDetail [of]="list" let-service>
            <arb-service-form [service]="service" (saved)="updated($event)" (closed)="editing.set(null)" />
          </ng-template>
        </arb-data-table>
      }
    }
  `,
})
export class ServicesPage implements OnInit {
  private readonly api = inject(ServicesApiService);
  private readonly confirm = inject(ConfirmService);
  protected readonly services = new Loadable(() => this.api.list());
  /** The open form: 'new', a service id, or none. */
  protected readonly editing = signal<string | null>(null);
  protected readonly removing = busyAction();
  protected readonly byId = (service: ServiceDto) => service.id;
  protected readonly testId = (service: ServiceDto) => `service-${service.name}`;
  protected readonly isEditing = (service: ServiceDto) => this.editing() === service.id;
  protected readonly reach = signal<Record<string, Reachability>>({});

  ngOnInit(): void {
    void this.reload();
  }

  protected async reload(): Promise<void> {
    await this.services.load();
    for (const service of this.services.value() ?? []) void this.ping(service);
  }

  protected async ping(service: ServiceDto): Promise<void> {
    const set = (value: Reachability) => this.reach.update((all) => ({ ...all, [service.id]: value }));
    set({ state: 'checking' });
    try {
      set({ state: 'done', result: await this.api.ping(service.id) });
    } catch (error) {
      set({ state: 'failed', message: describeError(error) });
    }
  }

  protected created(service: ServiceDto): void {
    this.services.set([...(this.services.value() ?? []), service]);
    void this.ping(service);
  }

  protected updated(service: ServiceDto): void {
    this.services.set((this.services.value() ?? []).map((s) => (s.id === service.id ? service : s)));
    this.editing.set(null);
    void this.ping(service);
  }

  protected async remove(service: ServiceDto): Promise<void> {
    this.removing.clear();
    const ok = await this.confirm.ask({
      title: `Delete ${service.name}?`,
      message: 'Arrbiter forgets the service and its key. Apps that still use it keep it from being deleted.',
      confirmLabel: 'Delete service',
      danger: true,
    });
    if (!ok) return;
    const outcome = await this.removing.run(() => this.api.remove(service.id));
    if (outcome.ok) this.services.set((this.services.value() ?? []).filter((s) => s.id !== service.id));
  }
}
