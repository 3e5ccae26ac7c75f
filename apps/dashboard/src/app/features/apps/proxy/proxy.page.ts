import { ChangeDetectionStrategy, Component, effect, inject, input } from '@angular/core';
import { RouterLink, RouterLinkActive, RouterOutlet } from '@angular/router';
import { ProxyContext } from './proxy-context';
import { LoadStateComponent, PageHeaderComponent } from '@arrbiter/dashboard/ui';

/** A proxy: connection details, endpoints (permissions), fit to a known client, usage and history as tabs. */
@Component({
  selector: 'arb-proxy-page',
  imports: [RouterOutlet, RouterLink, RouterLinkActive, LoadStateComponent, PageHeaderComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  styles: `
    .crumb {
      max-width: min(40ch, 70%);
    }
  `,
  template: `
    <nav class="hint" aria-label="Breadcrumb">
      <a routerLink="/apps">Apps</a> ›
      @let appName = context.app.value()?.name ?? 'App';
      <a class="ellipsis crumb" [routerLink]="['/apps', appId()]" [title]="appName">{{ appName }}</a> ›
    </nav>
    <arb-page-header [title]="context.title()">
      <div arbPageDetail>
        @if (context.proxy.value(); as p) {
          <p class="row">
            <span class="badge" [class.ok]="p.active">{{ p.active ? 'Active' : 'Inactive' }}</span>
            @if (context.app.value()?.active === false) {
              <span class="badge warn">App inactive: the proxy answers 401</span>
            }
          </p>
        }
      </div>
    </arb-page-header>
    <arb-load-state [loading]="context.proxy.loading()" [error]="context.proxy.error()" (retry)="reload()" />
    <nav class="tabs" aria-label="Proxy">
      <a routerLink="connection" routerLinkActive="active" ariaCurrentWhenActive="page">Connection</a>
      <a routerLink="endpoints" routerLinkActive="active" ariaCurrentWhenActive="page">Endpoints</a>
      <a routerLink="fit" routerLinkActive="active" ariaCurrentWhenActive="page">Fit</a>
      <a routerLink="usage" routerLinkActive="active" ariaCurrentWhenActive="page">Usage</a>
      <a routerLink="history" routerLinkActive="active" ariaCurrentWhenActive="page">History</a>
    </nav>
    <router-outlet />
  `,
})
export class ProxyPage {
  protected readonly context = inject(ProxyContext);
  readonly appId = input.required<string>();
  readonly proxyId = input.required<string>();

  constructor() {
    effect(() => void this.context.open(this.appId(), this.proxyId()));
  }

  protected reload(): void {
    void this.context.open(this.appId(), this.proxyId());
  }
}
