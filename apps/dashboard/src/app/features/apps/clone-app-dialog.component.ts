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
import { AppsApiService } from './apps-api.service';
import { busyAction, slugify } from '@arrbiter/dashboard/ui';
import { AppNameFieldsComponent, appNameProblem } from './app-name-fields.component';

/**
 * Clones an app under a new name and slug (the slug follows the name until typed): same template,
 * state and proxies, each with a new key. A modal `<dialog>`: focus stays in it, Escape closes it.
 */
@Component({
  selector: 'arb-clone-app-dialog',
  imports: [AppNameFieldsComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <dialog #dialog class="card modal" aria-labelledby="clone-title" (close)="closed.emit()">
      <form novalidate (submit)="$event.preventDefault(); submit()" [attr.aria-busy]="cloning.busy()">
        <h2 id="clone-title">Clone {{ app().name }}</h2>
        <p class="hint">
          The copy gets the same template, state, permissions, rate limits and response scrubbing, and a new key for
          each proxy: clients of this app keep theirs.
        </p>
        <div class="fields">
          <arb-app-name-fields
            idPrefix="clone"
            [(name)]="name"
            [(slug)]="slug"
            [(slugEdited)]="slugEdited"
            [invalid]="!!nameProblem()"
            errorId="clone-problem"
          />
        </div>
        @if (problem(); as message) {
          <p class="error" role="alert" id="clone-problem">{{ message }}</p>
        }
        <div class="actions">
          <button type="button" (click)="dialog.close()">Cancel</button>
          <button type="submit" class="primary" [disabled]="cloning.busy()">
            {{ cloning.busy() ? 'Cloning…' : 'Clone app' }}
          </button>
        </div>
      </form>
    </dialog>
  `,
  styles: `
    .fields {
      display: grid;
      gap: 0.75rem;
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
  protected readonly slugEdited = signal(false);
  protected readonly cloning = busyAction();
  private readonly touched = signal(false);
  /** The form's own finding about the name and slug (not the server's answer). */
  protected readonly nameProblem = computed(() => (this.touched() ? appNameProblem(this.name(), this.slug()) : null));
  protected readonly problem = computed(() => {
    if (this.cloning.error()) return this.cloning.error();
    if (!this.touched()) return null;
    return appNameProblem(this.name(), this.slug());
  });

  constructor() {
    // Opens as soon as it is shown, with a name to start from.
    effect(() => {
      const dialog = this.dialog().nativeElement;
      const name = `${this.app().name} (copy)`.slice(0, 100);
      untracked(() => {
        if (dialog.open) return;
        this.name.set(name);
        this.slug.set(slugify(name));
        dialog.showModal?.();
      });
    });
  }

  protected async submit(): Promise<void> {
    this.touched.set(true);
    this.cloning.clear();
    if (this.problem()) return;
    const outcome = await this.cloning.run(() =>
      this.api.clone(this.app().id, { name: this.name().trim(), slug: this.slug() }),
    );
    if (!outcome.ok) return;
    this.cloned.emit(outcome.value);
    this.dialog().nativeElement.close();
  }
}
