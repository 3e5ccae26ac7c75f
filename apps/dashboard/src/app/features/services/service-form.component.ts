import {
  ChangeDetectionStrategy,
  Component,
  computed,
  inject,
  input,
  linkedSignal,
  output,
  signal,
} from '@angular/core';
import type { ServiceDto } from '@arrbiter/contracts';
import { ServicesApiService } from './services-api.service';
import { busyAction } from '@arrbiter/dashboard/ui';

/** Base URLs the server accepts: http(s), no credentials, query, fragment or API prefix. */
export function baseUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Enter a full URL, like http://radarr:7878 or https://host/radarr.';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'The URL starts with http:// or https://.';
  if (url.username || url.password) return 'Leave credentials out of the URL; the API key goes below.';
  if (url.search || url.hash) return 'Leave the query and fragment out of the URL.';
  if (/\/api(\/v\d+)?\/?$/i.test(url.pathname)) return 'Leave out the API prefix (/api, /api/v3): Arrbiter adds it.';
  return null;
}

/** Create a service (with discovery feedback) or change its base URL or key. */
@Component({
  selector: 'arb-service-form',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <form class="card pad" novalidate (submit)="$event.preventDefault(); submit()" [attr.aria-busy]="saving.busy()">
      <h2>{{ service() ? 'Edit ' + service()?.name : 'Add a service' }}</h2>
      <div class="form-grid">
        <div class="field">
          <label for="service-base-url">Base URL</label>
          <input
            id="service-base-url"
            type="url"
            required
            placeholder="http://radarr:7878"
            [value]="baseUrl()"
            (input)="baseUrl.set($any($event.target).value)"
            autocomplete="off"
            spellcheck="false"
            [attr.aria-invalid]="fieldAtFault() === 'base-url' || null"
            [attr.aria-describedby]="
              fieldAtFault() === 'base-url' ? 'service-base-url-hint service-problem' : 'service-base-url-hint'
            "
          />
          <small id="service-base-url-hint"
            >Include the URL base if the service has one (http://host/radarr), not /api.</small
          >
        </div>
        <div class="field">
          <label for="service-api-key">API key</label>
          <input
            id="service-api-key"
            type="password"
            [required]="!service()"
            [placeholder]="service() ? 'Unchanged' : 'From Settings → General'"
            [value]="apiKey()"
            (input)="apiKey.set($any($event.target).value)"
            autocomplete="off"
            spellcheck="false"
            [attr.aria-invalid]="fieldAtFault() === 'api-key' || null"
            [attr.aria-describedby]="
              fieldAtFault() === 'api-key' ? 'service-api-key-hint service-problem' : 'service-api-key-hint'
            "
          />
          <small id="service-api-key-hint">{{
            service() ? 'Leave empty to keep the stored key.' : 'Stored encrypted; clients never see it.'
          }}</small>
        </div>
      </div>
      @if (saving.busy()) {
        <p class="muted" role="status"><span class="spinner" aria-hidden="true"></span> Contacting {{ baseUrl() }}…</p>
      }
      @if (problem(); as message) {
        <p class="error" role="alert" id="service-problem">{{ message }}</p>
      }
      @if (found(); as s) {
        <p class="success" role="status">
          Found {{ s.type }} “{{ s.name }}” {{ s.upstreamVersion }}, API {{ s.apiVersions.join(', ') }}.
        </p>
      }
      <div class="form-actions">
        <button type="submit" class="primary" [disabled]="saving.busy()">
          {{ service() ? 'Save service' : 'Add service' }}
        </button>
        <button type="button" (click)="closed.emit()">{{ found() && !service() ? 'Done' : 'Cancel' }}</button>
      </div>
    </form>
  `,
})
export class ServiceFormComponent {
  private readonly api = inject(ServicesApiService);
  /** The service to edit; null to create one. */
  readonly service = input<ServiceDto | null>(null);
  readonly saved = output<ServiceDto>();
  readonly closed = output();

  protected readonly baseUrl = linkedSignal(() => this.service()?.baseUrl ?? '');
  protected readonly apiKey = signal('');
  protected readonly saving = busyAction();
  private readonly touched = signal(false);
  protected readonly found = signal<ServiceDto | null>(null);
  /** The form's own finding, and the field it is about. */
  private readonly finding = computed((): { field: 'base-url' | 'api-key'; message: string } | null => {
    if (!this.touched()) return null;
    const url = baseUrlProblem(this.baseUrl().trim());
    if (url) return { field: 'base-url', message: url };
    if (!this.service() && !this.apiKey().trim()) return { field: 'api-key', message: 'Enter the service’s API key.' };
    return null;
  });
  protected readonly fieldAtFault = computed(() => this.finding()?.field ?? null);
  protected readonly problem = computed(() => this.saving.error() ?? this.finding()?.message ?? null);

  protected async submit(): Promise<void> {
    this.touched.set(true);
    this.saving.clear();
    this.found.set(null);
    if (this.problem()) return;
    const baseUrl = this.baseUrl().trim();
    const apiKey = this.apiKey().trim();
    const current = this.service();
    const outcome = await this.saving.run(() =>
      current
        ? this.api.update(current.id, { baseUrl, ...(apiKey ? { apiKey } : {}) })
        : this.api.create({ baseUrl, apiKey }),
    );
    if (!outcome.ok) return;
    this.found.set(outcome.value);
    this.apiKey.set('');
    this.touched.set(false);
    if (!current) this.baseUrl.set('');
    this.saved.emit(outcome.value);
  }
}
