import {
  ChangeDetectionStrategy,
  Component,
  computed,
  effect,
  inject,
  input,
  linkedSignal,
  output,
  signal,
  untracked,
} from '@angular/core';
import type { AppDto, TemplateDto, TemplateFitResponse } from '@arrbiter/contracts';
import { busyAction, LoadStateComponent } from '@arrbiter/dashboard/ui';
import { Loadable } from '../../core/loadable';
import { KnownClientsApiService } from '../known-clients/known-clients-api.service';
import { clientForTemplate } from '../known-clients/known-clients';
import { TemplateFitComponent } from '../known-clients/template-fit.component';
import { TemplatesApiService } from '../templates/templates-api.service';
import { AppsApiService } from './apps-api.service';
import { AppNameFieldsComponent, appNameProblem } from './app-name-fields.component';

/** Create an app (slug suggested from the name) or edit one; the chosen template's fit shows before saving. */
@Component({
  selector: 'arb-app-form',
  imports: [AppNameFieldsComponent, LoadStateComponent, TemplateFitComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <form class="card pad" novalidate (submit)="$event.preventDefault(); submit()" [attr.aria-busy]="saving.busy()">
      <h2>{{ app() ? 'Edit app' : 'New app' }}</h2>
      <div class="form-grid">
        <arb-app-name-fields
          idPrefix="app"
          placeholder="Overseerr"
          [(name)]="name"
          [(slug)]="slug"
          [(slugEdited)]="slugEdited"
          [invalid]="!!nameProblem()"
          errorId="app-problem"
        />
        <div class="field">
          <label for="app-template">Template</label>
          <select id="app-template" (change)="templateId.set($any($event.target).value)">
            <option value="" [selected]="templateId() === ''">No template</option>
            @for (t of templates(); track t.id) {
              <option [value]="t.id" [selected]="t.id === templateId()">
                {{ t.name }}{{ t.removed ? ' (removed)' : '' }}
              </option>
            }
          </select>
          @if (templatesError()) {
            <small>Templates are not available: {{ templatesError() }}</small>
          }
        </div>
        <label class="check">
          <input type="checkbox" [checked]="active()" (change)="active.set($any($event.target).checked)" />
          Active
        </label>
      </div>
      @if (templateId()) {
        <div class="template-fit" aria-live="polite" data-testid="template-fit">
          @if (shownFit(); as f) {
            <arb-template-fit [fit]="f" />
          } @else if (knownClients.ready() && !fitClient()) {
            <p class="hint">No known client matches this template: how well it fits cannot be shown.</p>
          }
          <arb-load-state
            [loading]="knownClients.loading() || (!!fitClient() && fit.loading())"
            [error]="knownClients.error() ?? (fitClient() ? fit.error() : null)"
            (retry)="reloadFit()"
          />
        </div>
      }
      @if (problem(); as message) {
        <p class="error" role="alert" id="app-problem">{{ message }}</p>
      }
      <div class="form-actions">
        <button type="submit" class="primary" [disabled]="saving.busy()">
          {{ saving.busy() ? 'Saving…' : app() ? 'Save app' : 'Create app' }}
        </button>
        <button type="button" (click)="closed.emit()">Cancel</button>
      </div>
    </form>
  `,
  styles: `
    .template-fit {
      margin-top: 0.75rem;
    }
  `,
})
export class AppFormComponent {
  private readonly api = inject(AppsApiService);
  private readonly templatesApi = inject(TemplatesApiService);
  private readonly knownClientsApi = inject(KnownClientsApiService);
  readonly app = input<AppDto | null>(null);
  readonly templates = input<TemplateDto[]>([]);
  readonly templatesError = input<string | null>(null);
  readonly saved = output<AppDto>();
  readonly closed = output();

  protected readonly name = linkedSignal(() => this.app()?.name ?? '');
  protected readonly slug = linkedSignal(() => this.app()?.slug ?? '');
  protected readonly templateId = linkedSignal(() => this.app()?.templateId ?? '');
  protected readonly active = linkedSignal(() => this.app()?.active ?? true);
  /** The slug follows the name until the administrator types one. */
  protected readonly slugEdited = linkedSignal(() => this.app() !== null);
  protected readonly saving = busyAction();
  private readonly touched = signal(false);
  protected readonly knownClients = new Loadable(() => this.knownClientsApi.list());
  /** The known client the chosen template was written for. */
  protected readonly fitClient = computed(() => {
    const template = this.templates().find((t) => t.id === this.templateId());
    return clientForTemplate(template?.name, this.knownClients.value() ?? []);
  });
  protected readonly fit = new Loadable<TemplateFitResponse>(() =>
    this.templatesApi.fit(this.templateId(), this.fitClient()?.id),
  );
  /** The chosen template's fit (not the one chosen before, while it loads). */
  protected readonly shownFit = computed(() => {
    const fit = this.fit.value();
    return fit && fit.templateId === this.templateId() && fit.client === this.fitClient()?.id ? fit : null;
  });
  /** The form's own finding about the name and slug (not the server's answer). */
  protected readonly nameProblem = computed(() => (this.touched() ? appNameProblem(this.name(), this.slug()) : null));
  protected readonly problem = computed(() => {
    if (this.saving.error()) return this.saving.error();
    if (!this.touched()) return null;
    return appNameProblem(this.name(), this.slug());
  });

  constructor() {
    void this.knownClients.load();
    effect(() => {
      if (this.templateId() && this.fitClient()) untracked(() => void this.fit.load());
    });
  }

  protected reloadFit(): void {
    if (this.knownClients.error()) void this.knownClients.load();
    else void this.fit.load();
  }

  protected async submit(): Promise<void> {
    this.touched.set(true);
    this.saving.clear();
    if (this.problem()) return;
    const request = {
      name: this.name().trim(),
      slug: this.slug(),
      templateId: this.templateId() || null,
      active: this.active(),
    };
    const current = this.app();
    const outcome = await this.saving.run(() =>
      current ? this.api.update(current.id, request) : this.api.create(request),
    );
    if (!outcome.ok) return;
    this.touched.set(false);
    this.saved.emit(outcome.value);
  }
}
