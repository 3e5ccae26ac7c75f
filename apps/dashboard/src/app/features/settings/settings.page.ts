import { ChangeDetectionStrategy, Component, inject, OnInit } from '@angular/core';
import type { ProxyDefaults } from '@arrbiter/contracts';
import { Loadable } from '../../core/loadable';
import { CanDirective } from '../../core/can.directive';
import { LimitsFormComponent, LimitsSummaryComponent } from '../apps/limits-form.component';
import { ProxiesApiService } from '../apps/proxies-api.service';
import { BackupConfigComponent } from './backup-config.component';
import { NotificationsSettingsComponent } from './notifications-settings.component';
import { busyAction, PageHeaderComponent } from '@arrbiter/dashboard/ui';

/** Server-wide settings: what new proxies start with, where notifications go, backup and declarative configuration. */
@Component({
  selector: 'arb-settings-page',
  imports: [
    CanDirective,
    LimitsFormComponent,
    LimitsSummaryComponent,
    NotificationsSettingsComponent,
    BackupConfigComponent,
    PageHeaderComponent,
  ],
  changeDetection: ChangeDetectionStrategy.OnPush,
  styles: `
    :host {
      display: grid;
      gap: 1rem;
    }
  `,
  template: `
    <arb-page-header title="Settings" />
    <section class="card pad" aria-labelledby="defaults-title">
      <h2 id="defaults-title">Defaults for new proxies</h2>
      <p class="hint">
        A new proxy starts with these; existing proxies keep their own (change them on a proxy’s page).
      </p>
      @if (defaults.value(); as value) {
        <arb-limits-form
          *arbCan="'owner'; else readOnly"
          [value]="value"
          [busy]="saving.busy()"
          saveLabel="Save defaults"
          labelledBy="defaults-title"
          (save)="save($event)"
        />
        <ng-template #readOnly>
          <arb-limits-summary [value]="value" />
          <p class="hint">Owners change the server’s settings.</p>
        </ng-template>
      } @else if (defaults.error(); as e) {
        <p class="error" role="alert">{{ e }}</p>
      } @else {
        <p class="hint" role="status">Loading…</p>
      }
      @if (saving.notice(); as m) {
        <p [class]="m.ok ? 'success' : 'error'" [attr.role]="m.ok ? 'status' : 'alert'">{{ m.text }}</p>
      }
    </section>
    <arb-notifications-settings />
    <arb-backup-config />
  `,
})
export class SettingsPage implements OnInit {
  private readonly api = inject(ProxiesApiService);
  protected readonly defaults = new Loadable<ProxyDefaults>(() => this.api.defaults());
  protected readonly saving = busyAction();

  ngOnInit(): void {
    void this.defaults.load();
  }

  protected async save(value: ProxyDefaults): Promise<void> {
    const outcome = await this.saving.run(
      () => this.api.saveDefaults(value),
      'Saved: proxies created from now on start with these.',
    );
    if (outcome.ok) this.defaults.set(outcome.value);
  }
}
