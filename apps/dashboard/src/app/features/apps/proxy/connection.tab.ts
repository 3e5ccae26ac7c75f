import { ChangeDetectionStrategy, Component, computed, effect, inject, signal, untracked } from '@angular/core';
import { Router } from '@angular/router';
import type { PreviousKeyDto, ProxyDefaults, ProxyDetailsDto, ProxyDto } from '@arrbiter/contracts';
import { CanDirective } from '../../../core/can.directive';
import { LimitsFormComponent, LimitsSummaryComponent } from '../limits-form.component';
import { ProxiesApiService } from '../proxies-api.service';
import { connectionFields } from './connection-fields';
import { KeyRotationComponent } from './key-rotation.component';
import { LearningControlComponent, LearningStateComponent } from './learning-control.component';
import { ProxyContext } from './proxy-context';
import {
  busyAction,
  ConfirmService,
  CopyButtonComponent,
  LoadStateComponent,
  TimeComponent,
} from '@arrbiter/dashboard/ui';
import { ClientInstructionsComponent } from '../../connect/client-instructions.component';
import { ConnectApiService } from '../../connect/connect-api.service';
import { Loadable } from '../../../core/loadable';
import { RecentCallsComponent } from './recent-calls.component';
import { previousKeyUse } from './grace';

/** The sentence a call returns is what the page says once it succeeds. */
const said = (text: string) => text;

/** What a client needs (Proxy URL, key, how-to), key rotation, the active switch and learning mode. */
@Component({
  selector: 'arb-connection-tab',
  imports: [
    CanDirective,
    ClientInstructionsComponent,
    CopyButtonComponent,
    KeyRotationComponent,
    LearningControlComponent,
    LearningStateComponent,
    LimitsFormComponent,
    LimitsSummaryComponent,
    LoadStateComponent,
    RecentCallsComponent,
    TimeComponent,
  ],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './connection.tab.html',
  styles: `
    .howto {
      margin-top: 1rem;
    }
    /* A card is no wider than the page, whatever its longest word or control. */
    .stack > * {
      min-width: 0;
    }
    .howto summary {
      cursor: pointer;
      font-weight: 600;
    }
    pre {
      background: var(--hover);
      padding: 0.75rem;
      border-radius: 0.5rem;
      overflow-x: auto;
    }
  `,
})
export class ConnectionTab {
  protected readonly context = inject(ProxyContext);
  private readonly api = inject(ProxiesApiService);
  private readonly confirm = inject(ConfirmService);
  private readonly router = inject(Router);
  protected readonly revealed = signal(false);
  protected readonly previousUse = (previous: PreviousKeyDto) => previousKeyUse(previous);
  /** The proxy's state and deletion; the limits form says its own outcome. */
  protected readonly action = busyAction();
  protected readonly limits = busyAction();
  protected readonly busy = computed(() => this.action.busy() || this.limits.busy());
  protected readonly fields = computed(() => {
    const url = this.context.proxy.value()?.proxyUrl;
    return url ? connectionFields(url) : null;
  });
  protected readonly apiVersion = computed(() => this.context.service.value()?.apiVersions[0] ?? 'v3');
  private readonly connectApi = inject(ConnectApiService);
  /** What to type into the app's known client for this proxy (apps connected from the catalogue). */
  protected readonly instructions = new Loadable(() =>
    this.connectApi.instructions(this.context.proxyId(), this.context.app.value()?.knownClientId),
  );

  constructor() {
    effect(() => {
      const client = this.context.app.value()?.knownClientId;
      const proxyId = this.context.proxyId();
      if (client && proxyId) untracked(() => void this.instructions.load());
    });
  }

  protected async setActive(proxy: ProxyDetailsDto, active: boolean): Promise<void> {
    await this.action.run(async () => {
      const updated: ProxyDto = await this.api.setActive(proxy.id, active);
      this.context.update(updated);
      return active ? 'Proxy activated.' : 'Proxy deactivated: its calls now get 401.';
    }, said);
  }

  protected async remove(proxy: ProxyDetailsDto): Promise<void> {
    const ok = await this.confirm.ask({
      title: 'Delete this proxy?',
      message: 'Its key stops working at once; its allowlist and history are deleted.',
      confirmLabel: 'Delete proxy',
      danger: true,
    });
    if (!ok) return;
    await this.action.run(async () => {
      await this.api.remove(proxy.id);
      await this.router.navigate(['/apps', proxy.appId]);
      return 'Deleted.';
    }, said);
  }

  protected async saveLimits(proxy: ProxyDetailsDto, limits: ProxyDefaults): Promise<void> {
    await this.limits.run(async () => {
      await this.api.saveLimits(proxy, limits);
      this.context.update(limits);
    }, 'Saved: the next call sees it.');
  }
}
