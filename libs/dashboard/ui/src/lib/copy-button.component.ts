import { ChangeDetectionStrategy, Component, input, signal } from '@angular/core';

/** Copies a value to the clipboard and says so. */
@Component({
  selector: 'arb-copy-button',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <button type="button" class="small" (click)="copy()" [attr.aria-label]="'Copy ' + label()">
      {{ state() === 'copied' ? 'Copied' : state() === 'failed' ? 'Copy failed' : 'Copy' }}
    </button>
    <span class="visually-hidden" aria-live="polite">{{ state() === 'copied' ? label() + ' copied' : '' }}</span>
  `,
})
export class CopyButtonComponent {
  readonly value = input.required<string>();
  /** What is copied, for the button's accessible name ("Proxy URL", "key"). */
  readonly label = input.required<string>();
  protected readonly state = signal<'idle' | 'copied' | 'failed'>('idle');
  private timer: ReturnType<typeof setTimeout> | undefined;

  protected async copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(this.value());
      this.state.set('copied');
    } catch {
      this.state.set('failed');
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.state.set('idle'), 2000);
  }
}
