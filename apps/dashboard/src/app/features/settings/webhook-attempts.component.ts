import { ChangeDetectionStrategy, Component, effect, inject, input, untracked } from '@angular/core';
import type { NotificationAttemptDto } from '@arrbiter/contracts';
import { LoadStateComponent, TimeComponent } from '@arrbiter/dashboard/ui';
import { PagedList } from '../../core/paged-list';
import { eventLabel, STATUS_LABELS } from './notification-draft';
import { NotificationsApiService } from './notifications-api.service';

/** A webhook's delivery attempts, newest first, ten at a time. */
@Component({
  selector: 'arb-webhook-attempts',
  imports: [LoadStateComponent, TimeComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <div class="table-wrap">
      <table class="responsive">
        <caption class="visually-hidden">
          Recent deliveries to this webhook, newest first
        </caption>
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Event</th>
            <th scope="col">Result</th>
          </tr>
        </thead>
        <tbody>
          @for (attempt of list.items(); track $index) {
            <tr>
              <td data-label="When"><arb-time [value]="attempt.at" /></td>
              <td data-label="Event">{{ label(attempt.event) }}</td>
              <td data-label="Result">
                <span [class]="'badge ' + status[attempt.status].badge">{{ status[attempt.status].label }}</span>
                @if (attempt.httpStatus !== undefined) {
                  <span class="hint"> HTTP {{ attempt.httpStatus }}</span>
                }
                @if (attempt.error) {
                  <div class="hint mono">{{ attempt.error }}</div>
                }
              </td>
            </tr>
          } @empty {
            @if (list.loaded()) {
              <tr>
                <td colspan="3" class="muted">Nothing sent yet. Send a test message to try the webhook.</td>
              </tr>
            }
          }
        </tbody>
      </table>
    </div>
    <arb-load-state [loading]="list.loading()" [error]="list.error()" (retry)="list.load(true)" />
    <div class="row">
      @if (list.nextCursor()) {
        <button type="button" class="small" [disabled]="list.loading()" (click)="list.load(false)">Show older</button>
      }
      <button type="button" class="small" [disabled]="list.loading()" (click)="list.load(true)">Refresh</button>
    </div>
  `,
})
export class WebhookAttemptsComponent {
  private readonly api = inject(NotificationsApiService);
  readonly webhookId = input.required<string>();
  /** Changes when the parent knows of a new attempt (a test message): the list loads again. */
  readonly version = input(0);
  protected readonly list = new PagedList<NotificationAttemptDto>((cursor) =>
    this.api.attempts(this.webhookId(), cursor),
  );
  protected readonly status = STATUS_LABELS;
  protected readonly label = eventLabel;

  constructor() {
    effect(() => {
      this.webhookId();
      this.version();
      untracked(() => void this.list.load(true));
    });
  }
}
