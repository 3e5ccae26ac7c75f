import { DOCUMENT } from '@angular/common';
import {
  ChangeDetectionStrategy,
  Component,
  computed,
  DestroyRef,
  effect,
  inject,
  input,
  output,
  signal,
  untracked,
} from '@angular/core';
import type { RecentCallDto, RecentCallOutcome } from '@arrbiter/contracts';
import { busyAction, ConfirmService, describeError, MethodBadgeComponent, methodLabel } from '@arrbiter/dashboard/ui';
import { AuthService } from '../../../core/auth.service';
import { ProxiesApiService } from '../proxies-api.service';

/** How often the view asks while it is visible. */
export const RECENT_CALLS_POLL_MS = 2_000;

const OUTCOMES: Record<RecentCallOutcome, { label: string; badge: string }> = {
  allowed: { label: 'Allowed', badge: 'ok' },
  refused: { label: 'Refused', badge: 'danger' },
  unauthorized: { label: 'Wrong or missing key', badge: 'warn' },
  'rate-limited': { label: 'Rate-limited', badge: 'warn' },
};

/** What a grant of this call adds to the allowlist: the route it resolved to, else its exact path. */
function grantOf(call: RecentCallDto): { method: string; route: string } {
  return { method: call.method.toLowerCase(), route: call.route ?? call.path };
}

const grantKey = (call: RecentCallDto) => {
  const { method, route } = grantOf(call);
  return `${method} ${route}`;
};

/**
 * "First calls, live": the calls one proxy receives, as they arrive (the connect flow's last step, the
 * proxy's Connection tab). Asks `GET …/proxies/:id/recent-calls` every 2 s while the page is visible,
 * which keeps the server recording; stops when the tab is hidden (and resumes when it shows again), when
 * the component goes, after the 10 minutes the first answer armed, or at "That's all, looks good"
 * (which emits `done`). A refused call has a one-click grant (editors), confirmed when its route is
 * sensitive or destructive.
 */
@Component({
  selector: 'arb-recent-calls',
  imports: [MethodBadgeComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './recent-calls.component.html',
  styles: `
    :host {
      display: block;
      min-width: 0;
    }
    .calls {
      list-style: none;
      margin: 0.5rem 0;
      padding: 0;
    }
    .calls li {
      display: flex;
      flex-wrap: wrap;
      align-items: baseline;
      gap: 0.25rem 0.75rem;
      padding: 0.5rem 0;
      border-bottom: 1px solid var(--border);
    }
    .calls li:last-child {
      border-bottom: 0;
    }
    .path {
      flex: 1 1 12rem;
      min-width: 0;
      overflow-wrap: anywhere;
      word-break: break-word;
    }
    .at {
      color: var(--muted);
      font-variant-numeric: tabular-nums;
    }
    .why {
      flex-basis: 100%;
      margin: 0;
    }
  `,
})
export class RecentCallsComponent {
  private readonly api = inject(ProxiesApiService);
  private readonly confirm = inject(ConfirmService);
  private readonly auth = inject(AuthService);
  private readonly document = inject(DOCUMENT);

  readonly proxyId = input.required<string>();
  /** "That's all, looks good": the view has stopped asking. */
  readonly done = output<void>();

  protected readonly items = signal<RecentCallDto[]>([]);
  protected readonly replicas = signal(1);
  /** The end of the first answer's arming: the view stops asking then. */
  protected readonly endsAt = signal<number | null>(null);
  protected readonly phase = signal<'watching' | 'ended' | 'done'>('watching');
  protected readonly failure = signal<string | null>(null);
  protected readonly granted = signal<ReadonlySet<string>>(new Set());
  protected readonly action = busyAction();
  protected readonly canGrant = computed(() => this.auth.can('editor'));
  protected readonly outcomes = OUTCOMES;
  protected readonly live = computed(() => {
    const count = this.items().length;
    switch (this.phase()) {
      case 'watching':
        return count === 0 ? 'Waiting for the first call…' : `${count} ${count === 1 ? 'call' : 'calls'} so far.`;
      case 'ended':
        return 'Stopped watching: no call is recorded any more.';
      case 'done':
        return 'Done.';
    }
  });

  private timer?: ReturnType<typeof setTimeout>;
  private inFlight = false;
  /** Bumped whenever the view starts again or stops: an answer of an earlier round is dropped. */
  private round = 0;

  constructor() {
    effect(() => {
      const id = this.proxyId();
      untracked(() => this.start(id));
    });
    const visibility = () => this.visibilityChanged();
    this.document.addEventListener('visibilitychange', visibility);
    inject(DestroyRef).onDestroy(() => {
      this.document.removeEventListener('visibilitychange', visibility);
      this.stop();
    });
  }

  protected isGranted(call: RecentCallDto): boolean {
    return this.granted().has(grantKey(call));
  }

  protected grantLabel(call: RecentCallDto): string {
    const { method, route } = grantOf(call);
    return `Grant ${methodLabel(method)} ${route}`;
  }

  protected time(call: RecentCallDto): string {
    return new Date(call.at).toLocaleTimeString();
  }

  /** "That's all, looks good". */
  protected finish(): void {
    this.stop();
    this.phase.set('done');
    this.done.emit();
  }

  /** After the 10 minutes: ask again (and record for another 10). */
  protected watchAgain(): void {
    this.stop();
    this.endsAt.set(null);
    this.phase.set('watching');
    void this.poll();
  }

  protected async grant(call: RecentCallDto): Promise<void> {
    const { method, route } = grantOf(call);
    const label = `${methodLabel(method)} ${route}`;
    const risk = call.risk;
    if (risk && (risk.sensitive || risk.destructive)) {
      const confirmed = await this.confirm.ask({
        title: `Grant ${label}?`,
        message: `${risk.sensitive ? 'This call is sensitive' : 'This call is destructive'}: ${risk.reason} Grant it only if this client needs it.`,
        confirmLabel: 'Grant',
        danger: true,
      });
      if (!confirmed) return;
    }
    const outcome = await this.action.run(
      () => this.api.setGrant(this.proxyId(), route, method, true),
      `Granted ${label}: the client's next call goes through.`,
    );
    if (outcome.ok) this.granted.update((keys) => new Set(keys).add(`${method} ${route}`));
  }

  private start(id: string): void {
    this.stop();
    this.items.set([]);
    this.replicas.set(1);
    this.endsAt.set(null);
    this.granted.set(new Set());
    this.failure.set(null);
    this.phase.set('watching');
    void this.poll(id);
  }

  private async poll(id = this.proxyId()): Promise<void> {
    this.timer = undefined;
    if (this.phase() !== 'watching' || this.document.hidden || this.inFlight) return;
    const ends = this.endsAt();
    if (ends !== null && Date.now() >= ends) {
      this.phase.set('ended');
      return;
    }
    const round = this.round;
    this.inFlight = true;
    try {
      const answer = await this.api.recentCalls(id);
      if (round !== this.round) return;
      this.items.set(answer.items);
      this.replicas.set(answer.replicas);
      this.failure.set(null);
      if (this.endsAt() === null) this.endsAt.set(Date.parse(answer.armedUntil));
    } catch (error) {
      if (round !== this.round) return;
      this.failure.set(describeError(error));
    } finally {
      this.inFlight = false;
    }
    this.schedule();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.phase() !== 'watching' || this.document.hidden) return;
    this.timer = setTimeout(() => void this.poll(), RECENT_CALLS_POLL_MS);
  }

  private visibilityChanged(): void {
    if (this.document.hidden) {
      clearTimeout(this.timer);
      this.timer = undefined;
    } else if (this.timer === undefined) void this.poll();
  }

  private stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.round += 1;
    this.inFlight = false;
  }
}
