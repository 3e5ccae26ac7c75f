import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import { methodLabel } from './format';

/** An HTTP method as the dashboard shows it everywhere: upper case, monospace, bold (`get` → GET). */
@Component({
  selector: 'arb-method-badge',
  changeDetection: ChangeDetectionStrategy.OnPush,
  host: { class: 'method', '[attr.data-method]': 'label()' },
  template: `{{ label() }}`,
})
export class MethodBadgeComponent {
  readonly method = input.required<string>();
  protected readonly label = computed(() => methodLabel(this.method()));
}
