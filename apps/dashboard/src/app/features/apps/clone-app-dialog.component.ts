import {
  ChangeDetectionStrategy,
  Component,
  computed,
  effect,
  ElementRef,
  inject,
  input,
  output,
  signal,
  untracked,
  viewChild,
} from '@angular/core';
import type { AppDto } from '@arrbiter/contracts';
import { describeError } from '../../core/api-error';
import { AppsApiService } from './apps-api.service';
import { SLUG_PATTERN, slugify } from '@arrbiter/dashboard/ui';

/**
 * Clones an app under a new name and slug (the slug follows the name until typed): same template,
 * state and proxies, each with a new key. A modal `<dialog>`: focus stays in it, Escape closes it.
 */
@Component({
  selector: 'arb-clone-app-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <dialog #dialog class="card clone" aria-labelledby="clone-title" (close)="closed.emit()">
      <form (submit)="$event.preventDefault(); submit()" [attr.aria-busy]="busy()">
        <h2 id="clone-title">Clone {{ app().name }}</h2>
        <p class="hint">
          The copy gets the same template, state, permissions, rate limits and response scrubbing, and a new key for
          each proxy: clients of this app keep theirs.
        </p>
        <div class="field">
          <label for="clone-name">Name</label>
          <input
            id="clone-name"
            required
            maxlength="100"
            [value]="name()"
            (input)="setName($any($event.target).value)"
          />
        </div>
        <div class="field">
          <label for="clone-slug">Slug</label>
          <input
            id="clone-slug"
            required
            maxlength="63"
            spellcheck="false"
            autocapitalize="none"
            [value]="slug()"
            (input)="setSlug($any($event.target).value)"
            aria-describedby="clone-slug-hint"
          />
          <small id="clone-slug-hint">In the proxy URL: /proxy/{{ slug() || 'slug' }}</small>
        </div>
        @if (problem(); as message) {
          <p class="error" role="alert">{{ message }}</p>
        }
        <div class="actions">
          <button type="button" (click)="dialog.close()">Cancel</button>
          <button type="submit" class="primary" [disabled]="busy()">{{ busy() ? 'Cloning…' : 'Clone app' }}</button>
        </div>
      </form>
    </dialog>
  `,
  styles: `
    .clone {
      width: min(30rem, calc(100vw - 2rem));
      padding: 1.5rem;
      color: var(--text);
    }
    .clone::backdrop {
      background: rgb(0 0 0 / 0.45);
    }
    h2 {
      margin: 0 0 0.5rem;
    }
    .field {
      margin-top: 0.75rem;
    }
    .actions {
      display: flex;
      justify-content: flex-end;
      gap: 0.5rem;
      margin-top: 1.25rem;
    }
  `,
})
export class CloneAppDialogComponent {
  private readonly api = inject(AppsApiService);
  readonly app = input.required<AppDto>();
  readonly cloned = output<AppDto>();
  readonly closed = output();

  private readonly dialog = viewChild.required<ElementRef<HTMLDialogElement>>('dialog');
  protected readonly name = signal('');
  protected readonly slug = signal('');
  private readonly slugEdited = signal(false);
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

  constructor() {
    // Opens as soon as it is shown, with a name to start from.
    effect(() => {
      const dialog = this.dialog().nativeElement;
      const name = `${this.app().name} (copy)`.slice(0, 100);
      untracked(() => {
        if (dialog.open) return;
        this.setName(name);
        dialog.showModal?.();
      });
    });
  }

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
    try {
      const copy = await this.api.clone(this.app().id, { name: this.name().trim(), slug: this.slug() });
      this.cloned.emit(copy);
      this.dialog().nativeElement.close();
    } catch (error) {
      this.error.set(describeError(error));
    } finally {
      this.busy.set(false);
    }
  }
}
