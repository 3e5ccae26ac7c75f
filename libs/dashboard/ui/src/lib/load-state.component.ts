import { ChangeDetectionStrategy, Component, input, output } from '@angular/core';

/** Loading and error states of a section: a quiet spinner, or the server's message with a retry. */
@Component({
  selector: 'arb-load-state',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    @if (error(); as message) {
      <div class="error load-error" role="alert">
        <span>{{ message }}</span>
        <button type="button" class="small" (click)="retry.emit()">Retry</button>
      </div>
    } @else if (loading()) {
      <p class="muted loading" role="status"><span class="spinner" aria-hidden="true"></span> Loading…</p>
    }
  `,
  styles: `
    .load-error {
      display: flex;
      align-items: center;
      justify-content: space-between;
      gap: 1rem;
    }
    .loading {
      display: flex;
      align-items: center;
      gap: 0.5rem;
    }
  `,
})
export class LoadStateComponent {
  readonly loading = input(false);
  readonly error = input<string | null | undefined>(null);
  readonly retry = output();
}
