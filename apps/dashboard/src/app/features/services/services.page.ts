import { ChangeDetectionStrategy, Component, inject, OnInit, signal } from '@angular/core';
import type { ServiceDto, ServiceReachabilityDto } from '@arrbiter/contracts';
import { CanDirective } from '../../core/can.directive';
import { Loadable } from '../../core/loadable';
import { ServiceFormComponent } from './service-form.component';
import { ServicesApiService } from './services-api.service';
import { ConfirmService, describeError, LoadStateComponent, TimeComponent } from '@arrbiter/dashboard/ui';

export type Reachability =
  | { state: 'checking' }
  | { state: 'done'; result: ServiceReachabilityDto }
  | { state: 'failed'; message: string };

@Component({
  selector: 'arb-services-page',
  imports: [CanDirective, LoadStateComponent, ServiceFormComponent, TimeComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <header class="page-head">
      <div class="grow">
        <h1>Services</h1>
        <p class="muted">The Servarr instances Arrbiter guards. Their API keys never leave Arrbiter.</p>
      </div>
      @if (editing() === null) {
        <button type="button" class="primary" *arbCan="'editor'" (click)="editing.set('new')">Add service</button>
      }
    </header>

    @if (editing() === 'new') {
      <arb-service-form (saved)="created($event)" (closed)="editing.set(null)" />
    }
    @if (message(); as m) {
      <p class="error" role="alert">{{ m }}</p>
    }

    <arb-load-state [loading]="services.loading()" [error]="services.error()" (retry)="reload()" />
    @if (services.value(); as list) {
      @if (list.length === 0) {
        <section class="card empty-state">
          <p>No services yet. Add the first one with its base URL and API key.</p>
        </section>
      } @else {
        <section class="card table-wrap">
          <table class="responsive">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Base URL</th>
                <th scope="col">API</th>
                <th scope="col">Reachability</th>
                <th scope="col"><span class="visually-hidden">Actions</span></th>
              </tr>
            </thead>
            <tbody>
              @for (service of list; track service.id) {
                <tr [attr.data-testid]="'service-' + service.name">
                  <td data-label="Name">
                    <strong>{{ service.name }}</strong> <span class="badge accent">{{ service.type }}</span>
                    <div class="hint">version {{ service.upstreamVersion }}</div>
                  </td>
                  <td data-label="Base URL">
                    <code>{{ service.baseUrl }}</code>
                  </td>
                  <td data-label="API">{{ service.apiVersions.join(', ') }}</td>
                  <td data-label="Reachability">
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
                    <button type="button" class="link small" (click)="ping(service)">Check</button>
                  </td>
                  <td class="actions">
                    <ng-container *arbCan="'editor'">
                      <button type="button" class="small" (click)="editing.set(service.id)">Edit</button>
                      <button type="button" class="small danger" (click)="remove(service)">Delete</button>
                    </ng-container>
                  </td>
                </tr>
                @if (editing() === service.id) {
                  <tr>
                    <td colspan="5">
                      <arb-service-form [service]="service" (saved)="updated($event)" (closed)="editing.set(null)" />
                    </td>
                  </tr>
                }
              }
            </tbody>
          </table>
        </section>
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
  protected readonly message = signal<string | null>(null);
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
    this.message.set(null);
    const ok = await this.confirm.ask({
      title: `Delete ${service.name}?`,
      message: 'Arrbiter forgets the service and its key. Apps that still use it keep it from being deleted.',
      confirmLabel: 'Delete service',
      danger: true,
    });
    if (!ok) return;
    try {
      await this.api.remove(service.id);
      this.services.set((this.services.value() ?? []).filter((s) => s.id !== service.id));
    } catch (error) {
      this.message.set(describeError(error));
    }
  }
}
