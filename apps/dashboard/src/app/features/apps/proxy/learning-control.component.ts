import { ChangeDetectionStrategy, Component, computed, inject, input, output, signal } from '@angular/core';
import type { ProxyDto } from '@arrbiter/contracts';
import { ProxiesApiService } from '../proxies-api.service';
import { isLearning, LEARNING_DURATIONS, learningDeadline } from './learning';
import { busyAction, TimeComponent } from '@arrbiter/dashboard/ui';

/** Learning mode of one proxy: start for a duration (up to 7 days) or stop, with its deadline. */
@Component({
  selector: 'arb-learning-control',
  imports: [TimeComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    @if (on()) {
      <p class="row">
        <span class="badge warn">Learning</span>
        <span>
          Refused calls are forwarded and recorded until
          <strong>{{ deadline() }}</strong> (<arb-time [value]="until()!" />).
        </span>
        <button type="button" class="small" (click)="stop()" [disabled]="busy()">Stop learning</button>
      </p>
    } @else {
      <form class="row" (submit)="$event.preventDefault(); start()">
        <label [for]="'learning-' + proxyId()">Learn for</label>
        <select [id]="'learning-' + proxyId()" (change)="hours.set(+$any($event.target).value)">
          @for (d of durations; track d.hours) {
            <option [value]="d.hours" [selected]="d.hours === hours()">{{ d.label }}</option>
          }
        </select>
        <button type="submit" class="small" [disabled]="busy()">Start learning</button>
      </form>
      <p class="hint">
        While learning, calls outside the allowlist are let through and listed as learned warnings — except endpoints
        that expose secrets or control the server, which stay refused.
      </p>
    }
    @if (action.error(); as e) {
      <p class="error" role="alert">{{ e }}</p>
    }
  `,
})
export class LearningControlComponent {
  private readonly api = inject(ProxiesApiService);
  readonly proxyId = input.required<string>();
  readonly until = input.required<string | null>();
  readonly changed = output<ProxyDto>();

  protected readonly durations = LEARNING_DURATIONS;
  protected readonly hours = signal(24);
  protected readonly action = busyAction();
  protected readonly busy = this.action.busy;
  protected readonly on = computed(() => isLearning(this.until()));
  protected readonly deadline = computed(() => {
    const until = this.until();
    return until ? new Date(until).toLocaleString() : '';
  });

  protected start(): Promise<void> {
    return this.run(() => this.api.startLearning(this.proxyId(), learningDeadline(this.hours())));
  }

  protected stop(): Promise<void> {
    return this.run(() => this.api.stopLearning(this.proxyId()));
  }

  private async run(call: () => Promise<ProxyDto>): Promise<void> {
    const outcome = await this.action.run(call);
    if (outcome.ok) this.changed.emit(outcome.value);
  }
}

/** Whether a proxy is learning, and until when, read only (what a viewer sees). */
@Component({
  selector: 'arb-learning-state',
  imports: [TimeComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    @if (on()) {
      <p class="row">
        <span class="badge warn">Learning</span>
        <span>Refused calls are forwarded and recorded until <arb-time [value]="until()!" />.</span>
      </p>
    } @else {
      <p class="muted">Not learning.</p>
    }
  `,
})
export class LearningStateComponent {
  readonly until = input.required<string | null>();
  protected readonly on = computed(() => isLearning(this.until()));
}
