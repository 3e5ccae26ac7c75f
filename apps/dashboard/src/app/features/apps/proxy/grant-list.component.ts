import { ChangeDetectionStrategy, Component, input, output } from '@angular/core';
import type { Grant } from '@arrbiter/contracts';
import { MethodBadgeComponent, methodLabel } from '@arrbiter/dashboard/ui';
import { CanDirective } from '../../../core/can.directive';

/**
 * Grants of a proxy's allowlist, one a row (the method and the path), each with a Revoke button for
 * editors: the grants a known client never uses (Fit) and those not called in a period (Usage). The
 * tab that shows the list makes the change.
 */
@Component({
  selector: 'arb-grant-list',
  imports: [CanDirective, MethodBadgeComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <ul class="plain">
      @for (g of grants(); track g.method + ' ' + g.path) {
        <li class="row" [attr.data-testid]="testIdPrefix() + g.method + '-' + g.path">
          <arb-method-badge [method]="g.method" />&ngsp;<code class="grow">{{ g.path }}</code>
          <button
            *arbCan="'editor'"
            type="button"
            class="small"
            [disabled]="busy()"
            [attr.aria-label]="'Revoke ' + method(g.method) + ' ' + g.path"
            (click)="revoke.emit(g)"
          >
            Revoke
          </button>
        </li>
      }
    </ul>
  `,
  styles: `
    :host {
      display: block;
    }
  `,
})
export class GrantListComponent {
  readonly grants = input.required<readonly Grant[]>();
  /** A change is under way: the Revoke buttons wait for it. */
  readonly busy = input(false);
  /** Each row's `data-testid` is this followed by `<method>-<path>` (`unused-get-/api/v3/calendar`). */
  readonly testIdPrefix = input.required<string>();
  /** An editor asked to revoke this grant. */
  readonly revoke = output<Grant>();

  protected readonly method = methodLabel;
}
