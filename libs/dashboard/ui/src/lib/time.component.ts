import { ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import { fullTime, relativeTime } from './format';

/** A time as "3 min ago", the exact time in its title and datetime attribute. */
@Component({
  selector: 'arb-time',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `<time [attr.datetime]="value()" [title]="full()">{{ relative() }}</time>`,
})
export class TimeComponent {
  readonly value = input.required<string>();
  protected readonly full = computed(() => fullTime(this.value()));
  protected readonly relative = computed(() => relativeTime(this.value()));
}
