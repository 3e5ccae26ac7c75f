import { ChangeDetectionStrategy, Component, computed, effect, inject, signal, untracked } from '@angular/core';
import { RouterLink } from '@angular/router';
import type { AllowlistResponse, Grant, ProxyUsageResponse, RevisionDto, WarningDto } from '@arrbiter/contracts';
import { CanDirective } from '../../../core/can.directive';
import { Loadable } from '../../../core/loadable';
import { TrafficChartComponent } from '../../usage/traffic-chart.component';
import { UsageApiService } from '../../usage/usage-api.service';
import { periodQuery, periodWords, UsagePeriod } from '../../usage/usage-period';
import { UsagePeriodPickerComponent } from '../../usage/usage-period-picker.component';
import { WarningsApiService } from '../../warnings/warnings-api.service';
import { ProxiesApiService } from '../proxies-api.service';
import { GrantListComponent } from './grant-list.component';
import { GrantUndoComponent } from './grant-undo.component';
import { ProxyContext } from './proxy-context';
import { RouteRow, routeRows, unusedGrants } from './usage-rows';
import {
  busyAction,
  ConfirmService,
  confirmGrant,
  RiskBadgeComponent,
  DATA_TABLE,
  LoadStateComponent,
  MethodBadgeComponent,
  methodLabel,
  TimeComponent,
} from '@arrbiter/dashboard/ui';
import { methodRouteKey, methodRouteTestId } from './route-row';

/** Routes listed before "Show all". */
const TOP = 15;

/**
 * What the proxy's client calls: traffic per hour, the routes it called (deny an allowed one, grant a
 * refused one, in one click) and the grants it did not use in the period (revoke them). Every change is
 * a revision of the proxy.
 */
@Component({
  selector: 'arb-usage-tab',
  imports: [
    CanDirective,
    GrantListComponent,
    LoadStateComponent,
    RouterLink,
    TimeComponent,
    TrafficChartComponent,
    UsagePeriodPickerComponent,
    MethodBadgeComponent,
    DATA_TABLE,
    GrantUndoComponent,
    RiskBadgeComponent,
  ],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './usage.tab.html',
  styles: `
    .head {
      margin-bottom: 0.5rem;
    }
    .head h2 {
      margin: 0;
    }
  `,
})
export class UsageTab {
  protected readonly trackRow = methodRouteKey;
  protected readonly rowTestId = methodRouteTestId('route-');
  private readonly usageApi = inject(UsageApiService);
  private readonly proxiesApi = inject(ProxiesApiService);
  private readonly warningsApi = inject(WarningsApiService);
  protected readonly context = inject(ProxyContext);
  private readonly confirm = inject(ConfirmService);
  /** The last grant's line, with Undo. */
  protected readonly granted = signal<{ text: string; revisions: RevisionDto[] } | null>(null);

  protected readonly top = TOP;
  protected readonly period = signal<UsagePeriod>('24h');
  protected readonly words = computed(() => periodWords(this.period()));
  protected readonly showAll = signal(false);
  protected readonly action = busyAction();
  protected readonly busy = this.action.busy;
  protected readonly method = methodLabel;

  protected readonly usage = new Loadable<ProxyUsageResponse>(() =>
    this.usageApi.ofProxy(this.context.proxyId(), periodQuery(this.period())),
  );
  protected readonly allowlist = new Loadable<AllowlistResponse>(() =>
    this.proxiesApi.allowlist(this.context.proxyId()),
  );
  /** Open and learned warnings of the proxy: a grant of their route goes through them. */
  private readonly warnings = new Loadable<WarningDto[]>(async () => {
    const proxyId = this.context.proxyId();
    const [open, learned] = await Promise.all([
      this.warningsApi.list({ proxyId, status: 'open', limit: 200 }),
      this.warningsApi.list({ proxyId, status: 'learned', limit: 200 }),
    ]);
    return [...open.items, ...learned.items];
  });

  protected readonly rows = computed(() => {
    const usage = this.usage.value();
    const allowlist = this.allowlist.value();
    return usage && allowlist ? routeRows(usage.routes, allowlist.effective, this.warnings.value() ?? []) : [];
  });
  protected readonly shownRows = computed(() => (this.showAll() ? this.rows() : this.rows().slice(0, TOP)));
  protected readonly unused = computed(() => {
    const usage = this.usage.value();
    const allowlist = this.allowlist.value();
    return usage && allowlist ? unusedGrants(allowlist.effective, usage.routes) : [];
  });

  constructor() {
    effect(() => {
      const id = this.context.proxyId();
      this.period();
      if (id) untracked(() => void this.usage.load());
    });
    effect(() => {
      if (this.context.proxyId()) untracked(() => void this.refreshAllowlist());
    });
  }

  /** Takes the method on this route out of the allowlist (a `manual` revision). */
  protected deny(row: RouteRow): Promise<void> {
    return this.change(row.route, row.method, false, `Denied ${methodLabel(row.method)} ${row.route}`);
  }

  /** Lets the refused method on this route through: through its warning when there is one (a `warning-grant` revision). */
  protected async grant(row: RouteRow): Promise<void> {
    const target = `${methodLabel(row.method)} ${row.route}`;
    if (!(await confirmGrant(this.confirm, [{ label: target, risk: row.risk }]))) return;
    this.granted.set(null);
    const proxyId = this.context.proxyId();
    const warningId = row.warningId;
    const outcome = await this.action.run(async () => {
      try {
        if (warningId !== null) return (await this.warningsApi.grant(warningId)).revision;
        await this.proxiesApi.setGrant(proxyId, row.route, row.method, true);
        return (await this.proxiesApi.revisions(proxyId, { limit: 1 })).items[0] ?? null;
      } finally {
        await this.refreshAllowlist();
      }
    });
    if (outcome.ok)
      this.granted.set({
        text: `Granted ${target}: saved as a new revision; the next call sees it.`,
        revisions: outcome.value ? [outcome.value] : [],
      });
  }

  /** After an Undo: the allowlist as it is now. */
  protected undone(): void {
    void this.refreshAllowlist();
  }

  protected revoke(grant: Grant): Promise<void> {
    return this.change(grant.path, grant.method, false, `Revoked ${methodLabel(grant.method)} ${grant.path}`);
  }

  /** One method on one route set on top of the saved configuration (a `manual` revision). */
  private change(path: string, method: string, granted: boolean, done: string): Promise<void> {
    return this.run(done, () => this.proxiesApi.setGrant(this.context.proxyId(), path, method, granted));
  }

  private async run(done: string, write: () => Promise<unknown>): Promise<void> {
    this.granted.set(null);
    await this.action.run(async () => {
      try {
        await write();
      } finally {
        await this.refreshAllowlist();
      }
    }, `${done}: saved as a new revision; the next call sees it.`);
  }

  private async refreshAllowlist(): Promise<void> {
    await Promise.all([this.allowlist.load(), this.warnings.load()]);
  }
}
