import { ChangeDetectionStrategy, Component, computed, effect, inject, signal, untracked } from '@angular/core';
import { RouterLink } from '@angular/router';
import type { ApplyFitRequest, FitResult, FitUnusedGrant, NamedCall, RevisionDto } from '@arrbiter/contracts';
import {
  ConfirmService,
  confirmGrant,
  DATA_TABLE,
  describeError,
  EmptyStateComponent,
  LoadStateComponent,
  MethodBadgeComponent,
  methodLabel,
  TimeComponent,
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
import { ProxyContext } from './proxy-context';
import { GrantUndoComponent } from './grant-undo.component';
import { methodRouteKey, methodRouteTestId } from './route-row';

/** The periods a grant must have gone uncalled to be offered for revoking, in days. */
export const UNUSED_PERIODS = [7, 30, 90] as const;

/** A missing route's risk: the first call's (every call of a route shares it). */
function riskOf(route: MissingRoute) {
  return route.calls[0]?.risk;
}

/**
 * How the proxy's allowlist fits a known client: the calls the client makes (read from its own source)
 * that the allowlist refuses, each grantable, and the grants it does not use. A single grant is one
 * `manual` revision; "Grant missing" (the calls that are not sensitive, plus the sensitive ones ticked)
 * and "Revoke…" (exactly the grants listed: not in the client's catalogue and not called through this
 * proxy for the chosen period, after a confirmation that lists them) are one `client-fit` revision each.
 */
@Component({
  selector: 'arb-fit-tab',
  imports: [
    CallSourceComponent,
    CanDirective,
    LoadStateComponent,
    TimeComponent,
    RouterLink,
    MethodBadgeComponent,
    EmptyStateComponent,
    DATA_TABLE,
    GrantUndoComponent,
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
    .reason {
      display: block;
      margin-top: 0.25rem;
      overflow-wrap: anywhere;
    }
    .check {
      white-space: nowrap;
    }
    .period {
      margin: 0 0 0.5rem;
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
  protected readonly message = signal<{
    ok: boolean;
    text: string;
    revised?: boolean;
    /** A grant's revisions: its line offers Undo. */
    undo?: RevisionDto[];
  } | null>(null);

  protected readonly clients = new Loadable(() => this.knownClientsApi.list());
  /** The app's known client (connected as one), else the client of its template, as the server picks it. */
  private readonly defaultClient = computed(() => {
    const app = this.context.app.value();
    const clients = this.clients.value() ?? [];
    const connected = app?.knownClientId ? clients.find((c) => c.id === app.knownClientId) : undefined;
    return connected ?? clientForTemplate(app?.templateName, clients);
  });
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

  protected readonly periods = UNUSED_PERIODS;
  /** Unused = not in the client's catalogue and not called through this proxy for this many days. */
  protected readonly period = signal<number>(30);
  /** The sensitive refused calls ticked for "Grant missing", by method and route. */
  protected readonly ticked = signal<ReadonlySet<string>>(new Set());

  protected readonly fit = new Loadable<FitResult>(() =>
    this.proxiesApi.fit(this.context.proxyId(), this.chosen(), this.period()),
  );
  /** The fit of the chosen client (not an earlier client's, while the new one loads). */
  protected readonly shown = computed(() => {
    const fit = this.fit.value();
    return fit && fit.client === this.chosen() && !this.noCalls() ? fit : null;
  });
  protected readonly missing = computed(() => missingRoutes(this.shown()?.missing ?? []));
  protected readonly risk = riskOf;
  protected readonly key = (call: { method: string; route: string }) => `${call.method} ${call.route}`;
  /** The sensitive refused calls ticked, still refused. */
  protected readonly included = computed<NamedCall[]>(() =>
    this.missing()
      .filter((m) => riskOf(m)?.sensitive && this.ticked().has(this.key(m)))
      .map(({ method, route }) => ({ method, route })),
  );
  protected readonly sensitiveCount = computed(() => this.missing().filter((m) => riskOf(m)?.sensitive).length);
  /** What "Grant missing" grants: the refused routes that are not sensitive, and the sensitive ones ticked. */
  protected readonly toGrant = computed(() => this.missing().length - this.sensitiveCount() + this.included().length);
  protected readonly unused = computed<FitUnusedGrant[]>(() => this.shown()?.unused ?? []);
  protected readonly unusedKey = (u: FitUnusedGrant) => `${u.method} ${u.route}`;
  protected readonly unusedTestId = (u: FitUnusedGrant) => `fit-unused-${u.method}-${u.route}`;

  constructor() {
    void this.clients.load();
    effect(() => {
      const id = this.context.proxyId();
      const client = this.chosen();
      this.period();
      // Once the service type is known, so that a client that never calls it is not asked about.
      const type = this.context.service.value()?.type;
      if (id && client && type && !this.noCalls()) untracked(() => void this.fit.load());
    });
  }

  protected choose(client: string): void {
    this.message.set(null);
    this.ticked.set(new Set());
    this.picked.set(client);
  }

  protected choosePeriod(days: string): void {
    this.message.set(null);
    this.period.set(Number(days));
  }

  /** Ticks or unticks a sensitive refused call for "Grant missing". */
  protected tick(route: MissingRoute, on: boolean): void {
    this.ticked.update((set) => {
      const next = new Set(set);
      if (on) next.add(this.key(route));
      else next.delete(this.key(route));
      return next;
    });
  }

  /**
   * Lets the refused method on its route through (a `manual` revision, as the endpoint editor saves); a
   * sensitive one after a confirmation that says why it is.
   */
  protected async grant(route: MissingRoute): Promise<void> {
    const label = `${methodLabel(route.method)} ${route.route}`;
    if (!(await confirmGrant(this.confirm, [{ label, risk: riskOf(route) }]))) return;
    const proxyId = this.context.proxyId();
    return this.run(async () => {
      await this.proxiesApi.setGrant(proxyId, route.route, route.method, true);
      const revision = (await this.proxiesApi.revisions(proxyId, { limit: 1 })).items[0];
      await this.fit.load();
      return {
        text: `Granted ${label}: saved as a new revision; the next call sees it.`,
        undo: revision ? [revision] : [],
      };
    });
  }

  /** Grants the refused calls that are not sensitive and the sensitive ones ticked, after a confirmation. */
  protected async grantMissing(fit: FitResult): Promise<void> {
    const include = this.included();
    const count = this.toGrant();
    const left = this.sensitiveCount() - include.length;
    const ok = await this.confirm.ask({
      title: `Grant ${fit.clientName}’s refused calls?`,
      message: `${plural(count, 'grant')} ${count === 1 ? 'is' : 'are'} added to this proxy’s allowlist for ${fit.clientName}’s calls to ${serviceTypeName(fit.serviceType)}${include.length > 0 ? `, ${plural(include.length, 'sensitive call')} you ticked among them` : ''}.${left > 0 ? ` ${plural(left, 'sensitive call')} ${left === 1 ? 'stays' : 'stay'} refused: tick ${left === 1 ? 'it' : 'them'} to include ${left === 1 ? 'it' : 'them'}.` : ''} It is one revision: History restores the allowlist as it was.`,
      confirmLabel: 'Grant missing',
      items: include.map((c) => `${methodLabel(c.method)} ${c.route} (sensitive)`),
    });
    if (!ok) return;
    await this.apply(fit, {
      client: fit.client,
      grantMissing: true,
      ...(include.length > 0 ? { include: { sensitive: include } } : {}),
      // The fit answered after it keeps the period shown.
      unusedDays: this.period(),
    });
    this.ticked.set(new Set());
  }

  /**
   * Revokes exactly the unused grants listed (not in the catalogue, not called through this proxy for
   * the period), after a confirmation that lists them; the server refuses (409) if one was called since.
   */
  protected async revokeUnused(fit: FitResult): Promise<void> {
    const grants = this.unused();
    const days = this.period();
    const ok = await this.confirm.ask({
      title: `Revoke ${plural(grants.length, 'unused grant')}?`,
      message: `${grants.length === 1 ? 'This grant is' : 'These grants are'} in none of ${fit.clientName}’s calls that the catalogue knows of, and ${grants.length === 1 ? 'was' : 'were'} not called through this proxy in the last ${days} days. ${grants.length === 1 ? 'It is' : 'They are'} taken out of the allowlist in one revision: History restores it as it was.`,
      confirmLabel: `Revoke ${plural(grants.length, 'grant')}`,
      danger: true,
      items: grants.map((g) => `${methodLabel(g.method)} ${g.route}`),
    });
    if (!ok) return;
    await this.apply(fit, {
      client: fit.client,
      grantMissing: false,
      revoke: grants.map(({ method, route }) => ({ method, route })),
      unusedDays: days,
    });
  }

  private apply(fit: FitResult, request: ApplyFitRequest): Promise<void> {
    return this.run(async () => {
      const result = await this.proxiesApi.applyFit(this.context.proxyId(), request);
      this.fit.set(result.fit);
      if (!result.revision) return { text: 'Nothing to change: the allowlist already fits.', revised: false };
      const what = request.grantMissing
        ? `Granted ${fit.clientName}’s refused calls`
        : `Revoked ${plural(request.revoke?.length ?? 0, 'unused grant')}`;
      return {
        text: `${what} (${result.revision.summary.text}): saved as one revision; the next call sees it.`,
        // Undo takes back what it granted, or gives back what it revoked.
        undo: [result.revision],
      };
    });
  }

  /** After an Undo: the fit against the allowlist as it is now. */
  protected undone(): void {
    this.message.set(null);
    void this.fit.load();
  }

  private async run(write: () => Promise<{ text: string; revised?: boolean; undo?: RevisionDto[] }>): Promise<void> {
    this.busy.set(true);
    this.message.set(null);
    try {
      const { text, revised = true, undo } = await write();
      this.message.set({ ok: true, text, revised, ...(undo ? { undo } : {}) });
    } catch (error) {
      this.message.set({ ok: false, text: describeError(error) });
      // The allowlist may have changed in part: show it as it is now.
      await this.fit.load();
    } finally {
      this.busy.set(false);
    }
  }
}
