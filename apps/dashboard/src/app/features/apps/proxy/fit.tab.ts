import { ChangeDetectionStrategy, Component, computed, effect, inject, signal, untracked } from '@angular/core';
import { RouterLink } from '@angular/router';
import type { ApplyFitRequest, FitResult, Grant } from '@arrbiter/contracts';
import {
  ConfirmService,
  DATA_TABLE,
  describeError,
  EmptyStateComponent,
  LoadStateComponent,
  MethodBadgeComponent,
  methodLabel,
} from '@arrbiter/dashboard/ui';
import { CanDirective } from '../../../core/can.directive';
import { Loadable } from '../../../core/loadable';
import { CallSourceComponent } from '../../known-clients/call-source.component';
import { KnownClientsApiService } from '../../known-clients/known-clients-api.service';
import {
  clientForTemplate,
  fitSentence,
  MissingRoute,
  missingRoutes,
  plural,
  releaseUrl,
  serviceTypeName,
} from '../../known-clients/known-clients';
import { ProxiesApiService } from '../proxies-api.service';
import { GrantListComponent } from './grant-list.component';
import { ProxyContext } from './proxy-context';
import { methodRouteKey, methodRouteTestId } from './route-row';

/**
 * How the proxy's allowlist fits a known client: the calls the client makes (read from its own source)
 * that the allowlist refuses, each grantable, and the grants it never uses, each revocable. A grant or
 * revoke is one `manual` revision; "Grant all" and "Revoke all unused" are one `client-fit` revision.
 */
@Component({
  selector: 'arb-fit-tab',
  imports: [
    CallSourceComponent,
    CanDirective,
    GrantListComponent,
    LoadStateComponent,
    RouterLink,
    MethodBadgeComponent,
    EmptyStateComponent,
    DATA_TABLE,
  ],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './fit.tab.html',
  styles: `
    .head {
      margin-bottom: 0.5rem;
      align-items: end;
    }
    .head h2 {
      margin: 0;
    }
    .summary {
      margin: 0.75rem 0 0;
      font-size: 1.05rem;
    }
    .calls {
      list-style: none;
      margin: 0;
      padding: 0;
    }
    .calls li + li {
      margin-top: 0.25rem;
    }
  `,
})
export class FitTab {
  protected readonly trackRow = methodRouteKey;
  protected readonly rowTestId = methodRouteTestId('missing-');
  private readonly proxiesApi = inject(ProxiesApiService);
  private readonly knownClientsApi = inject(KnownClientsApiService);
  private readonly confirm = inject(ConfirmService);
  protected readonly context = inject(ProxyContext);

  protected readonly method = methodLabel;
  protected readonly sentence = fitSentence;
  protected readonly busy = signal(false);
  /** The last change's outcome; `revised` when it saved a revision (History shows it). */
  protected readonly message = signal<{ ok: boolean; text: string; revised?: boolean } | null>(null);

  protected readonly clients = new Loadable(() => this.knownClientsApi.list());
  /** The known client of the app's template, as the server picks it. */
  private readonly defaultClient = computed(() =>
    clientForTemplate(this.context.app.value()?.templateName, this.clients.value() ?? []),
  );
  /** The client the administrator picked, if any: it stays picked when the app or the catalogue loads later. */
  private readonly picked = signal<string | null>(null);
  /** The client the fit is shown for: the template's until the administrator picks another. */
  protected readonly chosen = computed(() => this.picked() ?? this.defaultClient()?.id ?? '');
  protected readonly chosenClient = computed(() => this.clients.value()?.find((c) => c.id === this.chosen()));
  protected readonly clientSource = computed(() => this.chosenClient()?.source);
  protected readonly release = computed(() => releaseUrl(this.clientSource()));
  /** Clients that call the proxy's service type (every client until the service is known), and the chosen one. */
  protected readonly options = computed(() => {
    const type = this.context.service.value()?.type;
    const chosen = this.chosen();
    return (this.clients.value() ?? [])
      .filter((c) => !type || (c.calls[type] ?? 0) > 0 || c.id === chosen)
      .sort((a, b) => a.name.localeCompare(b.name));
  });
  /** Why there is nothing to show yet, once the app and the catalogue are known. */
  protected readonly noClient = computed(() => {
    const app = this.context.app.value();
    if (this.chosen() || !app || !this.clients.ready()) return null;
    return app.templateName
      ? `The app’s template “${app.templateName}” matches no known client. If the app is one of them, choose it above to see how this allowlist fits it.`
      : 'The app has no template, so no known client is chosen. If the app is one of them, choose it above to see how this allowlist fits it.';
  });

  /** The chosen client makes no call to the proxy's service type (the server answers 422): nothing to fit. */
  protected readonly noCalls = computed(() => {
    const type = this.context.service.value()?.type;
    const client = this.chosenClient();
    if (!type || !client || (client.calls[type] ?? 0) > 0) return null;
    return `${client.name} makes no call to ${serviceTypeName(type)} that the catalogue knows of: there is nothing to fit. Choose another client above if the app is one of them.`;
  });

  protected readonly fit = new Loadable<FitResult>(() => this.proxiesApi.fit(this.context.proxyId(), this.chosen()));
  /** The fit of the chosen client (not an earlier client's, while the new one loads). */
  protected readonly shown = computed(() => {
    const fit = this.fit.value();
    return fit && fit.client === this.chosen() && !this.noCalls() ? fit : null;
  });
  protected readonly missing = computed(() => missingRoutes(this.shown()?.missing ?? []));
  /** The grants the client never uses, as the allowlist writes them. */
  protected readonly unused = computed<Grant[]>(() =>
    (this.shown()?.unused ?? []).map(({ method, route }) => ({ method, path: route })),
  );

  constructor() {
    void this.clients.load();
    effect(() => {
      const id = this.context.proxyId();
      const client = this.chosen();
      // Once the service type is known, so that a client that never calls it is not asked about.
      const type = this.context.service.value()?.type;
      if (id && client && type && !this.noCalls()) untracked(() => void this.fit.load());
    });
  }

  protected choose(client: string): void {
    this.message.set(null);
    this.picked.set(client);
  }

  /** Lets the refused method on its route through (a `manual` revision, as the endpoint editor saves). */
  protected grant(route: MissingRoute): Promise<void> {
    return this.change(route.route, route.method, true, 'Granted');
  }

  /** Takes the unused method on its route out of the allowlist (a `manual` revision). */
  protected revoke(grant: Grant): Promise<void> {
    return this.change(grant.path, grant.method, false, 'Revoked');
  }

  /** One method on one route set on top of the saved configuration, then the fit again. */
  private change(path: string, method: string, granted: boolean, done: string): Promise<void> {
    return this.run(async () => {
      await this.proxiesApi.setGrant(this.context.proxyId(), path, method, granted);
      await this.fit.load();
      return { text: `${done} ${methodLabel(method)} ${path}: saved as a new revision; the next call sees it.` };
    });
  }

  protected async grantAll(fit: FitResult): Promise<void> {
    const routes = missingRoutes(fit.missing).length;
    const ok = await this.confirm.ask({
      title: `Grant ${fit.clientName}’s refused calls?`,
      message: `${plural(routes, 'grant')} ${routes === 1 ? 'is' : 'are'} added to this proxy’s allowlist, so that ${plural(fit.missing.length, 'call')} of ${fit.clientName} to ${serviceTypeName(fit.serviceType)} pass${fit.missing.length === 1 ? 'es' : ''}. It is one revision: History restores the allowlist as it was.`,
      confirmLabel: 'Grant all',
    });
    if (ok) await this.apply(fit, { client: fit.client, grantMissing: true, revokeUnused: false });
  }

  protected async revokeAll(fit: FitResult): Promise<void> {
    const ok = await this.confirm.ask({
      title: `Revoke the grants ${fit.clientName} never uses?`,
      message: `${plural(fit.unused.length, 'grant')} ${fit.unused.length === 1 ? 'is' : 'are'} taken out of this proxy’s allowlist. A call the catalogue does not know of, or another client sharing this key, would then be refused. It is one revision: History restores the allowlist as it was.`,
      confirmLabel: 'Revoke all unused',
      danger: true,
    });
    if (ok) await this.apply(fit, { client: fit.client, grantMissing: false, revokeUnused: true });
  }

  private apply(fit: FitResult, request: ApplyFitRequest): Promise<void> {
    return this.run(async () => {
      const result = await this.proxiesApi.applyFit(this.context.proxyId(), request);
      this.fit.set(result.fit);
      if (!result.revision) return { text: 'Nothing to change: the allowlist already fits.', revised: false };
      const what = request.grantMissing
        ? `Granted ${plural(fit.missing.length, 'refused call')} of ${fit.clientName}`
        : `Revoked ${plural(fit.unused.length, 'unused grant')}`;
      return { text: `${what} (${result.revision.summary.text}): saved as one revision; the next call sees it.` };
    });
  }

  private async run(write: () => Promise<{ text: string; revised?: boolean }>): Promise<void> {
    this.busy.set(true);
    this.message.set(null);
    try {
      const { text, revised = true } = await write();
      this.message.set({ ok: true, text, revised });
    } catch (error) {
      this.message.set({ ok: false, text: describeError(error) });
      // The allowlist may have changed in part: show it as it is now.
      await this.fit.load();
    } finally {
      this.busy.set(false);
    }
  }
}
