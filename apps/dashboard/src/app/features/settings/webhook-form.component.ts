import { ChangeDetectionStrategy, Component, computed, input, linkedSignal, output, signal } from '@angular/core';
import type { NotificationEventType, NotificationFormat } from '@arrbiter/contracts';
import { NOTIFICATION_EVENTS } from '@arrbiter/contracts';
import { EVENT_LABELS, FORMAT_LABELS, FORMATS, urlProblem, WebhookDraft } from './notification-draft';

let nextFormId = 0;

/** Adds or edits one webhook: format, URL (empty keeps the stored one), events, on or off. */
@Component({
  selector: 'arb-webhook-form',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <form
      class="webhook-form stack"
      novalidate
      [attr.aria-label]="value().id ? 'Edit webhook' : 'New webhook'"
      [attr.aria-busy]="busy()"
      (submit)="$event.preventDefault(); submit()"
    >
      <fieldset>
        <legend>Format</legend>
        <div class="choices">
          @for (format of formats; track format) {
            <label class="choice">
              <input
                type="radio"
                [name]="id + '-format'"
                [value]="format"
                [checked]="draft().format === format"
                (change)="set({ format })"
              />
              <span>
                <strong>{{ formatLabels[format].label }}</strong>
                <small class="hint">{{ formatLabels[format].hint }}</small>
              </span>
            </label>
          }
        </div>
      </fieldset>
      <div class="field">
        <label [for]="id + '-url'">Webhook URL</label>
        <input
          [id]="id + '-url'"
          type="url"
          inputmode="url"
          autocomplete="off"
          spellcheck="false"
          [placeholder]="masked() ?? formatLabels[draft().format].placeholder"
          [value]="draft().url"
          [attr.aria-describedby]="id + '-url-hint'"
          [attr.aria-invalid]="touched() && problem() !== null"
          (input)="set({ url: $any($event.target).value })"
        />
        <small [id]="id + '-url-hint'">
          @if (masked(); as shown) {
            Leave empty to keep the stored URL ({{ shown }}). URLs hold the webhook’s secret: Arrbiter stores them
            encrypted and only ever shows them masked.
          } @else {
            URLs hold the webhook’s secret: Arrbiter stores them encrypted and only ever shows them masked.
          }
        </small>
      </div>
      <fieldset>
        <legend>Events</legend>
        <div class="row">
          <button type="button" class="link small" (click)="set({ events: [...allEvents] })">All</button>
          <button type="button" class="link small" (click)="set({ events: [] })">None</button>
        </div>
        <div class="choices">
          @for (event of allEvents; track event) {
            <label class="choice">
              <input
                type="checkbox"
                [checked]="draft().events.includes(event)"
                (change)="toggleEvent(event, $any($event.target).checked)"
              />
              <span>
                {{ eventLabels[event].label }}
                <small class="hint">{{ eventLabels[event].hint }}</small>
              </span>
            </label>
          }
        </div>
      </fieldset>
      <label class="check">
        <input
          type="checkbox"
          role="switch"
          [checked]="draft().enabled"
          (change)="set({ enabled: $any($event.target).checked })"
        />
        Send notifications to this webhook
      </label>
      @if (touched() && problem(); as message) {
        <p class="error" role="alert">{{ message }}</p>
      }
      <div class="form-actions">
        <button type="submit" class="primary" [disabled]="busy()">
          {{ value().id ? 'Save webhook' : 'Add webhook' }}
        </button>
        <button type="button" (click)="cancelled.emit()">Cancel</button>
      </div>
    </form>
  `,
  styles: `
    fieldset {
      border: 1px solid var(--border);
      border-radius: 0.5rem;
      padding: 0.75rem 1rem;
      margin: 0;
    }
    legend {
      font-weight: 600;
      font-size: 0.875rem;
      padding: 0 0.25rem;
    }
    .choices {
      display: grid;
      gap: 0.5rem 1rem;
      grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr));
      margin-top: 0.5rem;
    }
    .choice {
      display: flex;
      gap: 0.5rem;
      align-items: flex-start;
    }
    .choice input {
      margin-top: 0.3rem;
    }
    .choice span {
      display: grid;
    }
    .field input {
      width: 100%;
    }
  `,
})
export class WebhookFormComponent {
  /** The webhook to edit, or a new one's defaults. */
  readonly value = input.required<WebhookDraft>();
  /** The stored URL, masked (editing), or null (a new webhook). */
  readonly masked = input<string | null>(null);
  readonly busy = input(false);
  readonly saved = output<WebhookDraft>();
  readonly cancelled = output();

  protected readonly id = `webhook-form-${nextFormId++}`;
  protected readonly formats: readonly NotificationFormat[] = FORMATS;
  protected readonly formatLabels = FORMAT_LABELS;
  protected readonly allEvents: readonly NotificationEventType[] = NOTIFICATION_EVENTS;
  protected readonly eventLabels = EVENT_LABELS;
  protected readonly draft = linkedSignal(() => ({ ...this.value() }));
  protected readonly touched = signal(false);
  protected readonly problem = computed(() => urlProblem(this.draft()));

  protected set(change: Partial<WebhookDraft>): void {
    this.draft.update((draft) => ({ ...draft, ...change }));
  }

  protected toggleEvent(event: NotificationEventType, on: boolean): void {
    const events = this.draft().events.filter((e) => e !== event);
    this.set({ events: on ? [...events, event] : events });
  }

  protected submit(): void {
    this.touched.set(true);
    if (this.problem() === null) this.saved.emit(this.draft());
  }
}
