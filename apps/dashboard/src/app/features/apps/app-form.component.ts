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
import type { AppDto, TemplateDto } from '@arrbiter/contracts';
import { describeError } from '../../core/api-error';
import { AppsApiService } from './apps-api.service';
import { SLUG_PATTERN, slugify } from '@arrbiter/dashboard/ui';

/** Create an app (slug suggested from the name) or edit one. */
@Component({
  selector: 'arb-app-form',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <form class="card pad" (submit)="$event.preventDefault(); submit()" [attr.aria-busy]="busy()">
      <h2>{{ app() ? 'Edit app' : 'New app' }}</h2>
      <div class="form-grid">
        <div class="field">
          <label for="app-name">Name</label>
          <input
            id="app-name"
            required
            maxlength="100"
            placeholder="Overseerr"
            [value]="name()"
            (input)="setName($any($event.target).value)"
          />
        </div>
        <div class="field">
          <label for="app-slug">Slug</label>
          <input
            id="app-slug"
            required
            maxlength="63"
            spellcheck="false"
            autocapitalize="none"
            [value]="slug()"
            (input)="setSlug($any($event.target).value)"
            aria-describedby="app-slug-hint"
          />
          <small id="app-slug-hint">In the proxy URL: /proxy/{{ slug() || 'slug' }}</small>
        </div>
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
      @if (problem(); as message) {
        <p class="error" role="alert">{{ message }}</p>
      }
      <div class="form-actions">
        <button type="submit" class="primary" [disabled]="busy()">
          {{ busy() ? 'Saving…' : app() ? 'Save app' : 'Create app' }}
        </button>
        <button type="button" (click)="closed.emit()">Cancel</button>
      </div>
    </form>
  `,
})
export class AppFormComponent {
  private readonly api = inject(AppsApiService);
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
  private readonly slugEdited = linkedSignal(() => this.app() !== null);
  protected readonly busy = signal(false);
  private readonly error = signal<string | null>(null);
  private readonly touched = signal(false);
  protected readonly problem = computed(() => {
    if (this.error()) return this.error();
    if (!this.touched()) return null;
    if (!this.name().trim()) return 'Enter a name.';
    if (!SLUG_PATTERN.test(this.slug()))
      return 'The slug uses lower-case letters, digits and dashes, and starts with a letter or digit.';
    return null;
  });

  protected setName(value: string): void {
    this.name.set(value);
    if (!this.slugEdited()) this.slug.set(slugify(value));
  }

  protected setSlug(value: string): void {
    this.slug.set(value);
    this.slugEdited.set(value !== '');
  }

  protected async submit(): Promise<void> {
    this.touched.set(true);
    this.error.set(null);
    if (this.problem()) return;
    this.busy.set(true);
    const request = {
      name: this.name().trim(),
      slug: this.slug(),
      templateId: this.templateId() || null,
      active: this.active(),
    };
    try {
      const current = this.app();
      const result = current ? await this.api.update(current.id, request) : await this.api.create(request);
      this.touched.set(false);
      this.saved.emit(result);
    } catch (error) {
      this.error.set(describeError(error));
    } finally {
      this.busy.set(false);
    }
  }
}
