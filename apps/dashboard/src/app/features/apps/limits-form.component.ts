import { ChangeDetectionStrategy, Component, effect, input, output, signal } from '@angular/core';
import type { ProxyDefaults } from '@arrbiter/contracts';

/** The largest values the server accepts (ProxyConfigDto). */
export const RATE_LIMIT_MAX = { perMinute: 6000, burst: 1000 };

/**
 * A proxy's rate limit and response scrubbing, or the defaults new proxies get: one form for both
 * (the proxy page and Settings). Emits the value to save; the parent saves it and shows the outcome.
 */
@Component({
  selector: 'arb-limits-form',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <form class="stack" novalidate (submit)="$event.preventDefault(); submit()" [attr.aria-labelledby]="labelledBy()">
      <label class="check">
        <input type="checkbox" [checked]="limited()" (change)="limited.set($any($event.target).checked)" />
        Limit how often the client may call
      </label>
      @if (limited()) {
        <div class="row limits">
          <label>
            Calls per minute
            <input
              type="number"
              inputmode="numeric"
              min="1"
              [max]="max.perMinute"
              step="1"
              required
              [value]="perMinute()"
              (input)="perMinute.set(+$any($event.target).value)"
            />
          </label>
          <label>
            Burst (calls at once)
            <input
              type="number"
              inputmode="numeric"
              min="1"
              [max]="max.burst"
              step="1"
              required
              [value]="burst()"
              (input)="burst.set(+$any($event.target).value)"
            />
          </label>
        </div>
        <p class="hint">
          Calls beyond the limit get 429 with Retry-After. Counted on each Arrbiter replica separately.
        </p>
      }
      <label class="check">
        <input type="checkbox" role="switch" [checked]="scrub()" (change)="scrub.set($any($event.target).checked)" />
        Hide the service’s own key and address in responses
      </label>
      <p class="hint">
        The service’s API key and URL are replaced by this proxy’s key and URL in response headers and text bodies, so
        that links keep working through the proxy. Turn it off only for a client that needs the raw responses.
      </p>
      @if (invalid(); as problem) {
        <p class="error" role="alert">{{ problem }}</p>
      }
      <div class="form-actions">
        <button type="submit" [disabled]="busy()">{{ saveLabel() }}</button>
      </div>
    </form>
  `,
  styles: `
    .limits label {
      display: grid;
      gap: 0.25rem;
    }
    .limits input {
      width: 9rem;
    }
  `,
})
export class LimitsFormComponent {
  readonly value = input.required<ProxyDefaults>();
  readonly busy = input(false);
  readonly saveLabel = input('Save');
  readonly labelledBy = input<string | null>(null);
  readonly save = output<ProxyDefaults>();

  protected readonly max = RATE_LIMIT_MAX;
  protected readonly limited = signal(false);
  protected readonly perMinute = signal(60);
  protected readonly burst = signal(10);
  protected readonly scrub = signal(true);
  protected readonly invalid = signal<string | null>(null);

  constructor() {
    // The form starts from the saved value, and again whenever a save brings a new one.
    effect(() => {
      const value = this.value();
      this.limited.set(value.rateLimit !== null);
      if (value.rateLimit) {
        this.perMinute.set(value.rateLimit.perMinute);
        this.burst.set(value.rateLimit.burst);
      }
      this.scrub.set(value.scrub);
    });
  }

  protected submit(): void {
    const whole = (n: number, most: number) => Number.isInteger(n) && n >= 1 && n <= most;
    if (this.limited() && !whole(this.perMinute(), RATE_LIMIT_MAX.perMinute))
      return this.invalid.set(`Calls per minute must be a whole number from 1 to ${RATE_LIMIT_MAX.perMinute}.`);
    if (this.limited() && !whole(this.burst(), RATE_LIMIT_MAX.burst))
      return this.invalid.set(`Burst must be a whole number from 1 to ${RATE_LIMIT_MAX.burst}.`);
    this.invalid.set(null);
    this.save.emit({
      rateLimit: this.limited() ? { perMinute: this.perMinute(), burst: this.burst() } : null,
      scrub: this.scrub(),
    });
  }
}

/** The same settings, read only (what a viewer sees). */
@Component({
  selector: 'arb-limits-summary',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <dl class="facts">
      <dt>Rate limit</dt>
      <dd>
        @if (value().rateLimit; as limit) {
          {{ limit.perMinute }} calls a minute, bursts of {{ limit.burst }}
        } @else {
          None
        }
      </dd>
      <dt>Hide the service’s key and address in responses</dt>
      <dd>{{ value().scrub ? 'Yes' : 'No' }}</dd>
    </dl>
  `,
})
export class LimitsSummaryComponent {
  readonly value = input.required<ProxyDefaults>();
}
