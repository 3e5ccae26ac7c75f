import { booleanAttribute, ChangeDetectionStrategy, Component, input, output } from '@angular/core';

/**
 * What a list says when it has nothing to show, with an optional call to action: a button
 * (`actionLabel` and `(action)`) or any projected content (a link, a form).
 * `card` frames it as a card of its own; without it, it sits inside the card around it.
 */
@Component({
  selector: 'arb-empty-state',
  changeDetection: ChangeDetectionStrategy.OnPush,
  host: { class: 'empty-state', '[class.card]': 'card()' },
  template: `
    @if (message(); as text) {
      <p>{{ text }}</p>
    }
    <ng-content />
    @if (actionLabel(); as label) {
      <p>
        <button type="button" (click)="action.emit()">{{ label }}</button>
      </p>
    }
  `,
  styles: `
    :host {
      display: block;
    }
    p:first-child {
      margin-top: 0;
    }
    p:last-child {
      margin-bottom: 0;
    }
  `,
})
export class EmptyStateComponent {
  readonly message = input<string>();
  readonly card = input(false, { transform: booleanAttribute });
  readonly actionLabel = input<string>();
  readonly action = output();
}
