import { ChangeDetectionStrategy, Component, effect, ElementRef, inject, viewChild } from '@angular/core';
import { ConfirmService } from './confirm.service';

/** The one modal confirmation dialog (native `<dialog>`: focus trap and Escape for free). */
@Component({
  selector: 'arb-confirm-dialog',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <dialog #dialog class="card modal" aria-labelledby="confirm-title" (close)="confirm.answer(false)">
      @if (confirm.pending(); as request) {
        <form method="dialog" (submit)="$event.preventDefault(); confirm.answer(true)">
          <h2 id="confirm-title">{{ request.title }}</h2>
          <p>{{ request.message }}</p>
          @if (request.items?.length) {
            <ul class="confirm-items" data-testid="confirm-items" tabindex="0" aria-label="Listed">
              @for (item of request.items; track $index) {
                <li>
                  <code>{{ item }}</code>
                </li>
              }
            </ul>
          }
          <div class="actions">
            <button type="button" (click)="confirm.answer(false)">Cancel</button>
            <button type="submit" [class.danger]="request.danger" [class.primary]="!request.danger" autofocus>
              {{ request.confirmLabel }}
            </button>
          </div>
        </form>
      }
    </dialog>
  `,
  styles: `
    .confirm-items {
      max-height: 14rem;
      overflow-y: auto;
      margin: 0;
      padding: 0.25rem 0 0.25rem 1.25rem;
      overflow-wrap: anywhere;
    }
  `,
})
export class ConfirmDialogComponent {
  protected readonly confirm = inject(ConfirmService);
  private readonly dialog = viewChild.required<ElementRef<HTMLDialogElement>>('dialog');

  constructor() {
    effect(() => {
      const dialog = this.dialog().nativeElement;
      const open = this.confirm.pending() !== null;
      if (open && !dialog.open) dialog.showModal?.();
      if (!open && dialog.open) dialog.close();
    });
  }
}
