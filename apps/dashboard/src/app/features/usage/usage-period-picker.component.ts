import { ChangeDetectionStrategy, Component, input, model } from '@angular/core';
import { USAGE_PERIODS, UsagePeriod } from './usage-period';

/** 24 h / 7 d / 30 d, as radio buttons in a row. */
@Component({
  selector: 'arb-usage-period-picker',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <fieldset class="periods">
      <legend class="visually-hidden">{{ legend() }}</legend>
      @for (p of periods; track p.value) {
        <label [class.on]="value() === p.value">
          <input
            type="radio"
            [name]="name()"
            [value]="p.value"
            [checked]="value() === p.value"
            (change)="value.set(p.value)"
          />
          {{ p.label }}
        </label>
      }
    </fieldset>
  `,
  styles: `
    .periods {
      display: inline-flex;
      border: 1px solid var(--border);
      border-radius: 0.5rem;
      padding: 0;
      margin: 0;
      overflow: hidden;
    }
    label {
      padding: 0.25rem 0.75rem;
      cursor: pointer;
      font-size: 0.875rem;
    }
    label + label {
      border-left: 1px solid var(--border);
    }
    label.on {
      background: var(--accent-soft);
      color: var(--accent);
      font-weight: 600;
    }
    label:focus-within {
      outline: 2px solid var(--accent);
      outline-offset: -2px;
    }
    input {
      position: absolute;
      opacity: 0;
      width: 1px;
      height: 1px;
    }
  `,
})
export class UsagePeriodPickerComponent {
  readonly value = model.required<UsagePeriod>();
  readonly name = input.required<string>();
  readonly legend = input('Period');
  protected readonly periods = USAGE_PERIODS;
}
