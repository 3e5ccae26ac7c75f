import { ChangeDetectionStrategy, Component, inject, OnInit, signal } from '@angular/core';
import type { NotificationAttemptDto, NotificationSettings, WebhookDto } from '@arrbiter/contracts';
import { busyAction, ConfirmService, describeError, LoadStateComponent } from '@arrbiter/dashboard/ui';
import { CanDirective } from '../../core/can.directive';
import { Loadable } from '../../core/loadable';
import {
  describeAttempt,
  draftOf,
  EVENT_LABELS,
  FORMAT_LABELS,
  listWith,
  newDraft,
  WebhookDraft,
} from './notification-draft';
import { NotificationsApiService } from './notifications-api.service';
import { WebhookAttemptsComponent } from './webhook-attempts.component';
import { WebhookFormComponent } from './webhook-form.component';

type TestState =
  | { state: 'sending' }
  | { state: 'done'; attempt: NotificationAttemptDto }
  | { state: 'error'; message: string };

/** The Settings page's notifications: webhooks to add, edit, test, turn on and off, remove; their deliveries. */
@Component({
  selector: 'arb-notifications-settings',
  imports: [CanDirective, LoadStateComponent, WebhookAttemptsComponent, WebhookFormComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './notifications-settings.component.html',
  styles: `
    .webhooks {
      list-style: none;
      margin: 0;
      padding: 0;
      display: grid;
      gap: 0.75rem;
    }
    .webhook {
      border: 1px solid var(--border);
      border-radius: 0.5rem;
      padding: 0.75rem 1rem;
      display: grid;
      gap: 0.5rem;
    }
    .webhook h3 {
      font-size: 1rem;
      margin: 0;
      display: flex;
      flex-wrap: wrap;
      gap: 0.5rem;
      align-items: center;
      min-width: 0;
    }
    .webhook p {
      margin: 0;
    }
    h4 {
      font-size: 0.9rem;
      margin: 0.5rem 0;
    }
  `,
})
export class NotificationsSettingsComponent implements OnInit {
  private readonly api = inject(NotificationsApiService);
  private readonly confirm = inject(ConfirmService);
  protected readonly settings = new Loadable<NotificationSettings>(() => this.api.get());
  /** The open form: a new webhook (id null) or one being edited. */
  protected readonly editing = signal<WebhookDraft | null>(null);
  protected readonly saving = busyAction();
  protected readonly busy = this.saving.busy;
  protected readonly tests = signal<Record<string, TestState>>({});
  protected readonly open = signal<Record<string, boolean>>({});
  /** Bumped after a test message, so that an open list of deliveries shows it. */
  protected readonly versions = signal<Record<string, number>>({});
  protected readonly formats = FORMAT_LABELS;
  protected readonly newDraft = newDraft;
  protected readonly draftOf = draftOf;
  protected readonly describe = describeAttempt;

  ngOnInit(): void {
    void this.load();
  }

  protected load(): Promise<void> {
    return this.settings.load();
  }

  protected eventsOf(webhook: WebhookDto): string {
    if (webhook.events.length === 0) return 'No events: only test messages.';
    return `Events: ${webhook.events.map((e) => EVENT_LABELS[e].label).join(', ')}.`;
  }

  protected async save(draft: WebhookDraft): Promise<void> {
    const done = await this.write(
      listWith(this.stored(), { save: draft }),
      draft.id ? 'Webhook saved.' : 'Webhook added: send a test message to check it.',
    );
    if (done) this.editing.set(null);
  }

  protected async toggle(webhook: WebhookDto): Promise<void> {
    await this.write(
      listWith(this.stored(), { toggle: webhook.id, enabled: !webhook.enabled }),
      webhook.enabled ? 'Webhook turned off.' : 'Webhook turned on.',
    );
  }

  protected async remove(webhook: WebhookDto): Promise<void> {
    const ok = await this.confirm.ask({
      title: 'Remove this webhook?',
      message: `Arrbiter stops notifying ${webhook.url} and forgets its deliveries.`,
      confirmLabel: 'Remove webhook',
      danger: true,
    });
    if (ok) await this.write(listWith(this.stored(), { remove: webhook.id }), 'Webhook removed.');
  }

  protected async test(webhook: WebhookDto): Promise<void> {
    const set = (state: TestState) => this.tests.update((all) => ({ ...all, [webhook.id]: state }));
    set({ state: 'sending' });
    try {
      set({ state: 'done', attempt: await this.api.test(webhook.id) });
      this.versions.update((all) => ({ ...all, [webhook.id]: (all[webhook.id] ?? 0) + 1 }));
    } catch (error) {
      set({ state: 'error', message: describeError(error) });
    }
  }

  protected toggleAttempts(webhook: WebhookDto): void {
    this.open.update((all) => ({ ...all, [webhook.id]: !all[webhook.id] }));
  }

  private stored(): WebhookDto[] {
    return this.settings.value()?.webhooks ?? [];
  }

  /** Saves the whole list; true when the server took it. */
  private async write(webhooks: ReturnType<typeof listWith>, success: string): Promise<boolean> {
    const outcome = await this.saving.run(() => this.api.save({ webhooks }), success);
    if (outcome.ok) this.settings.set(outcome.value);
    return outcome.ok;
  }
}
