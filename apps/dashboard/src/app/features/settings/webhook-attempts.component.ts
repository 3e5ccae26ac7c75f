import { ChangeDetectionStrategy, Component, effect, inject, input, untracked } from '@angular/core';
import type { NotificationAttemptDto } from '@arrbiter/contracts';
import { DATA_TABLE, LoadStateComponent, TimeComponent } from '@arrbiter/dashboard/ui';
import { PagedList } from '../../core/paged-list';
import { eventLabel, STATUS_LABELS } from './notification-draft';
import { NotificationsApiService } from './notifications-api.service';

/** A webhook's delivery attempts, newest first, ten at a time. */
@Component({
  selector: 'arb-webhook-attempts',
  imports: [LoadStateComponent, TimeComponent, DATA_TABLE],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <arb-data-table
      class="table-wrap"
      caption="Recent deliveries to this webhook, newest first"
      hiddenCaption
      [rows]="list.items()"
    >
      <ng-template arbColumn="When" [of]="list.items()" let-attempt>
        <arb-time [value]="attempt.at" />
      </ng-template>
      <ng-template arbColumn="Event" [of]="list.items()" let-attempt>{{ label(attempt.event) }}</ng-template>
      <ng-template arbColumn="Result" [of]="list.items()" let-attempt>
        <span [class]="'badge ' + status[attempt.status].badge">{{ status[attempt.status].label }}</span>
        @if (attempt.httpStatus !== undefined) {
          <span class="hint"> HTTP {{ attempt.httpStatus }}</span>
        }
        @if (attempt.error) {
          <div class="hint mono">{{ attempt.error }}</div>
        }
      </ng-template>
      @if (list.loaded()) {
        <ng-template arbTableEmpty>Nothing sent yet. Send a test message to try the webhook.</ng-template>
      }
    </arb-data-table>
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
