import { afterNextRender, ChangeDetectionStrategy, Component, ElementRef, inject, OnInit } from '@angular/core';
import { ActivatedRoute } from '@angular/router';
import type { ProxyDefaults } from '@arrbiter/contracts';
import { Loadable } from '../../core/loadable';
import { CanDirective } from '../../core/can.directive';
import { LimitsFormComponent, LimitsSummaryComponent } from '../apps/limits-form.component';
import { ProxiesApiService } from '../apps/proxies-api.service';
import { BackupConfigComponent } from './backup-config.component';
import { NotificationsSettingsComponent } from './notifications-settings.component';
import { TemplateRepositorySettingsComponent } from '../templates/template-repository-settings.component';
import { busyAction, PageHeaderComponent } from '@arrbiter/dashboard/ui';

export const SETTINGS_SECTIONS = [
  { id: 'proxy-defaults', title: 'Defaults for new proxies' },
  { id: 'notifications', title: 'Notifications' },
  { id: 'backup', title: 'Backup & configuration' },
  { id: 'template-repository', title: 'Template repository' },
] as const;

/** Server-wide settings: what new proxies start with, where notifications go, backup and declarative configuration. */
@Component({
  selector: 'arb-settings-page',
  imports: [
    CanDirective,
    LimitsFormComponent,
    LimitsSummaryComponent,
    NotificationsSettingsComponent,
    BackupConfigComponent,
    TemplateRepositorySettingsComponent,
    PageHeaderComponent,
  ],
  changeDetection: ChangeDetectionStrategy.OnPush,
  styles: `
    :host {
      display: grid;
      gap: 1rem;
    }
    .section-links ul {
      display: flex;
      flex-wrap: wrap;
      gap: 0.25rem 1rem;
      margin: 0;
      padding: 0;
      list-style: none;
    }
  `,
  template: `
    <arb-page-header title="Settings" />
    <nav class="section-links" aria-label="Settings sections">
      <ul>
        @for (s of sections; track s.id) {
          <li>
            <a [href]="'#' + s.id" (click)="jump($event, s.id)">{{ s.title }}</a>
          </li>
        }
      </ul>
    </nav>
    <section class="card pad" id="proxy-defaults" aria-labelledby="defaults-title">
      <h2 id="defaults-title" tabindex="-1">Defaults for new proxies</h2>
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
    <arb-template-repository-settings />
  `,
})
export class SettingsPage implements OnInit {
  /** The page's sections, linked at its top (each section's id, and the heading focused on a jump). */
  protected readonly sections = SETTINGS_SECTIONS;
  private readonly api = inject(ProxiesApiService);
  private readonly host = inject<ElementRef<HTMLElement>>(ElementRef);
  protected readonly defaults = new Loadable<ProxyDefaults>(() => this.api.defaults());
  protected readonly saving = busyAction();

  constructor() {
    // A link from another page names its section (`/settings#template-repository`).
    const fragment = inject(ActivatedRoute).snapshot.fragment;
    if (fragment) afterNextRender(() => this.focusSection(fragment));
  }

  /** Scrolls to a section and moves focus to its heading (the app's base href breaks a bare `#id` link). */
  protected jump(event: Event, id: string): void {
    if (this.focusSection(id)) event.preventDefault();
  }

  private focusSection(id: string): boolean {
    if (!SETTINGS_SECTIONS.some((s) => s.id === id)) return false;
    const section = this.host.nativeElement.querySelector<HTMLElement>(`#${id}`);
    if (!section) return false;
    section.scrollIntoView?.({ block: 'start' });
    section.querySelector<HTMLElement>('h2')?.focus({ preventScroll: true });
    return true;
  }

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
