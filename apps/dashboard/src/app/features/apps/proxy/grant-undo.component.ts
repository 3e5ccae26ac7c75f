import { ChangeDetectionStrategy, Component, inject, input, output, signal } from '@angular/core';
import { RouterLink } from '@angular/router';
import type { RevisionDto } from '@arrbiter/contracts';
import { busyAction, describeError } from '@arrbiter/dashboard/ui';
import { ProxiesApiService } from '../proxies-api.service';

/** A revision Undo takes back: which, of which proxy (a `RevisionDto`, or the id a save answers). */
export type UndoableRevision = Pick<RevisionDto, 'id' | 'proxyId'>;

/**
 * A grant's success line with Undo: takes back the grants of each revision it made (one per proxy),
 * then says so, or why it could not (409: a grant changed since).
 */
@Component({
  selector: 'arb-grant-undo',
  imports: [RouterLink],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    @if (!undone()) {
      <p class="success row" role="status" data-testid="grant-notice">
        <span>{{ text() }}</span
        >&ngsp;
        @if (history(); as link) {
          <a [routerLink]="link">See the history</a>
        }
        @if (revisions().length > 0) {
          <button type="button" class="small" (click)="undo()" [disabled]="action.busy()" data-testid="grant-undo">
            Undo
          </button>
        }
      </p>
    }
    @if (action.notice(); as n) {
      <p [class]="n.ok ? 'success' : 'error'" [attr.role]="n.ok ? 'status' : 'alert'" data-testid="undo-notice">
        {{ n.text }}
      </p>
    }
  `,
})
export class GrantUndoComponent {
  private readonly api = inject(ProxiesApiService);
  /** The success message. */
  readonly text = input.required<string>();
  /** The revisions the grant made (Undo takes each back). */
  readonly revisions = input<readonly UndoableRevision[]>([]);
  /** A link to the proxy's History tab (relative, as a tab gives it). */
  readonly history = input<string>();
  /** After a successful Undo: the `undo` revisions. */
  readonly undoneChange = output<RevisionDto[]>();
  protected readonly undone = signal(false);
  protected readonly action = busyAction({
    describe: (error) => {
      const status = (error as { status?: number } | null)?.status;
      return status === 409
        ? `Could not undo: a grant it added has changed since (revoked or edited); nothing was changed. ${describeError(error)}`
        : `Could not undo: ${describeError(error)}`;
    },
  });

  protected async undo(): Promise<void> {
    const outcome = await this.action.run(
      () => Promise.all(this.revisions().map((r) => this.api.undoRevision(r.proxyId, r.id))),
      (done) => `Undone. ${done.map((r) => r.summary.text).join(' ')}`,
    );
    if (outcome.ok) {
      this.undone.set(true);
      this.undoneChange.emit(outcome.value);
    }
  }
}
