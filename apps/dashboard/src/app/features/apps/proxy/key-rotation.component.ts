import { ChangeDetectionStrategy, Component, computed, inject, input, output, signal } from '@angular/core';
import { MAX_GRACE_MINUTES, type ProxyDetailsDto } from '@arrbiter/contracts';
import { ProxiesApiService } from '../proxies-api.service';
import { describeMinutes, GRACE_CHOICES, graceMinutes, previousKeyUse } from './grace';
import { busyAction, ConfirmService, fullTime, TimeComponent } from '@arrbiter/dashboard/ui';

/**
 * Rotating a proxy's key, with a grace period during which the old key keeps working; while one runs,
 * when it ends, whether the client still uses the old key, and a button that ends it at once.
 */
@Component({
  selector: 'arb-key-rotation',
  imports: [TimeComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    @if (proxy().previousKey; as previous) {
      <div class="notice previous-key" data-testid="previous-key">
        <p>
          <strong>Previous key valid until {{ full(previous.validUntil) }}</strong>
          (<arb-time [value]="previous.validUntil" />) — {{ use(previous) }}.
        </p>
        <p class="hint">
          {{
            previous.uses === 0
              ? 'No client has called with the old key since the rotation.'
              : 'A client still calls with the old key: give it the new one before the grace period ends.'
          }}
        </p>
        <div class="row">
          <button type="button" class="small" (click)="refresh.emit()" [disabled]="busy()">Refresh</button>
          <button type="button" class="small danger" (click)="endGrace()" [disabled]="busy()">End grace now</button>
        </div>
      </div>
    }
    <form class="row rotate" novalidate (submit)="$event.preventDefault(); rotate()">
      <label [for]="'grace-' + proxy().id">Keep the old key working for</label>
      <select [id]="'grace-' + proxy().id" (change)="choice.set($any($event.target).value)">
        @for (c of choices; track c.value) {
          <option [value]="c.value" [selected]="c.value === choice()">{{ c.label }}</option>
        }
      </select>
      @if (choice() === 'custom') {
        <label [for]="'grace-minutes-' + proxy().id">Minutes</label>
        <input
          [id]="'grace-minutes-' + proxy().id"
          class="minutes"
          type="number"
          inputmode="numeric"
          min="1"
          [max]="max"
          step="1"
          required
          [value]="custom()"
          (input)="custom.set($any($event.target).value)"
          [attr.aria-invalid]="minutes() === null"
          [attr.aria-describedby]="'grace-hint-' + proxy().id"
        />
      }
      <button type="submit" [disabled]="busy() || minutes() === null">Rotate key</button>
    </form>
    <p class="hint" [id]="'grace-hint-' + proxy().id">
      With a grace period, clients that still have the old key keep working until it ends (at most 7 days, 10080
      minutes): update them, watch the old key’s use drop to nothing, then end it. Rotating again ends the previous
      grace period at once.
    </p>
    @if (action.notice(); as m) {
      <p [class]="m.ok ? 'success' : 'error'" [attr.role]="m.ok ? 'status' : 'alert'">{{ m.text }}</p>
    }
  `,
  styles: `
    .previous-key p {
      margin: 0 0 0.5rem;
    }
    .rotate {
      margin-top: 0.75rem;
    }
    .minutes {
      width: 7rem;
    }
  `,
})
export class KeyRotationComponent {
  private readonly api = inject(ProxiesApiService);
  private readonly confirm = inject(ConfirmService);
  readonly proxy = input.required<ProxyDetailsDto>();
  /** The new key and previous key, for the page to show. */
  readonly changed = output<Pick<ProxyDetailsDto, 'key' | 'previousKey'>>();
  /** Asks the page to read the proxy again (the old key's use is counted on the server). */
  readonly refresh = output();

  protected readonly choices = GRACE_CHOICES;
  protected readonly max = MAX_GRACE_MINUTES;
  protected readonly choice = signal('none');
  protected readonly custom = signal('');
  protected readonly minutes = computed(() => graceMinutes(this.choice(), this.custom()));
  protected readonly action = busyAction();
  protected readonly busy = this.action.busy;
  protected readonly full = fullTime;
  protected readonly use = (previous: NonNullable<ProxyDetailsDto['previousKey']>) =>
    previousKeyUse(previous, fullTime);

  protected async rotate(): Promise<void> {
    const minutes = this.minutes();
    if (minutes === null) return;
    const ok = await this.confirm.ask({
      title: 'Rotate the key?',
      message:
        minutes === 0
          ? 'A new key is generated and the current one stops working at once. Update the client afterwards.'
          : `A new key is generated. The current one keeps working for ${describeMinutes(minutes)}, then stops${
              this.proxy().previousKey ? '; the key it replaced earlier stops at once' : ''
            }.`,
      confirmLabel: 'Rotate key',
      danger: true,
    });
    if (!ok) return;
    await this.run(async () => {
      const { key, previousKeyValidUntil } = await this.api.rotateKey(this.proxy().id, minutes);
      this.changed.emit({
        key,
        previousKey: previousKeyValidUntil ? { validUntil: previousKeyValidUntil, uses: 0, lastUsedAt: null } : null,
      });
      return previousKeyValidUntil
        ? `New key generated. The old key works until ${fullTime(previousKeyValidUntil)}.`
        : 'New key generated. The old key no longer works.';
    });
  }

  protected async endGrace(): Promise<void> {
    const ok = await this.confirm.ask({
      title: 'End the grace period now?',
      message: 'The previous key stops working at once; clients still using it get 401.',
      confirmLabel: 'End grace now',
      danger: true,
    });
    if (!ok) return;
    await this.run(async () => {
      await this.api.endGrace(this.proxy().id);
      this.changed.emit({ key: this.proxy().key, previousKey: null });
      return 'Grace period ended: the previous key no longer works.';
    });
  }

  private async run(action: () => Promise<string>): Promise<void> {
    const outcome = await this.action.run(action, (text) => text);
    // The grace period may have ended meanwhile (404): show what is true now.
    if (!outcome.ok) this.refresh.emit();
  }
}
