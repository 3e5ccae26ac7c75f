import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { Router } from '@angular/router';
import type { PreviousKeyDto, ProxyDefaults, ProxyDetailsDto, ProxyDto } from '@arrbiter/contracts';
import { CanDirective } from '../../../core/can.directive';
import { LimitsFormComponent, LimitsSummaryComponent } from '../limits-form.component';
import { ProxiesApiService } from '../proxies-api.service';
import { connectionFields } from './connection-fields';
import { KeyRotationComponent } from './key-rotation.component';
import { LearningControlComponent, LearningStateComponent } from './learning-control.component';
import { ProxyContext } from './proxy-context';
import { busyAction, ConfirmService, CopyButtonComponent, TimeComponent } from '@arrbiter/dashboard/ui';
import { previousKeyUse } from './grace';

/** The sentence a call returns is what the page says once it succeeds. */
const said = (text: string) => text;

/** What a client needs (Proxy URL, key, how-to), key rotation, the active switch and learning mode. */
@Component({
  selector: 'arb-connection-tab',
  imports: [
    CanDirective,
    CopyButtonComponent,
    KeyRotationComponent,
    LearningControlComponent,
    LearningStateComponent,
    LimitsFormComponent,
    LimitsSummaryComponent,
    TimeComponent,
  ],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    @if (context.proxy.value(); as p) {
      <div class="stack">
        <section class="card pad" aria-labelledby="conn-title">
          <h2 id="conn-title">Connection details</h2>
          <dl class="facts">
            <dt>Proxy URL</dt>
            <dd class="row">
              <code data-testid="proxy-url">{{ p.proxyUrl }}</code>
              <arb-copy-button [value]="p.proxyUrl" label="Proxy URL" />
            </dd>
            <dt>API key</dt>
            @if (p.key; as key) {
              <dd class="row">
                <code data-testid="proxy-key">{{ revealed() ? key : '••••••••••••••••••••••••••••••••' }}</code>
                <button
                  type="button"
                  class="small"
                  (click)="revealed.set(!revealed())"
                  [attr.aria-pressed]="revealed()"
                  [attr.aria-label]="revealed() ? 'Hide key' : 'Reveal key'"
                >
                  {{ revealed() ? 'Hide' : 'Reveal' }}
                </button>
                <arb-copy-button [value]="key" label="key" />
              </dd>
            } @else {
              <dd class="muted" data-testid="proxy-key-hidden">Not shown to viewers: ask an editor for it.</dd>
            }
          </dl>
          <details class="howto">
            <summary>How to connect a client</summary>
            <p>
              Put the Proxy URL where the client asks for the service’s URL, and the key where it asks for the API key.
            </p>
            @if (fields(); as f) {
              <p>Clients with separate fields:</p>
              <dl class="facts">
                <dt>Host</dt>
                <dd>
                  <code>{{ f.host }}</code>
                </dd>
                <dt>Port</dt>
                <dd>
                  <code>{{ f.port }}</code>
                </dd>
                <dt>Use SSL</dt>
                <dd>{{ f.ssl ? 'Yes' : 'No' }}</dd>
                <dt>URL base</dt>
                <dd>
                  <code>{{ f.urlBase }}</code>
                </dd>
              </dl>
            }
            <p class="hint">
              Do not add the service’s own URL base again. Send the key in the X-Api-Key header; the apikey query
              parameter works for clients that cannot send headers. A 401 points to the slug, key or active state; a 403
              to the allowlist (it shows up under Warnings).
            </p>
            <pre><code>curl -H "X-Api-Key: $KEY" {{ p.proxyUrl }}/api/{{ apiVersion() }}/system/status</code></pre>
          </details>
        </section>

        <section class="card pad" aria-labelledby="rotation-title">
          <h2 id="rotation-title">Key rotation</h2>
          <arb-key-rotation
            *arbCan="'editor'; else rotationState"
            [proxy]="p"
            (changed)="context.update($event); revealed.set(revealed() || $event.key !== p.key)"
            (refresh)="context.proxy.load()"
          />
          <ng-template #rotationState>
            @if (p.previousKey; as previous) {
              <p class="notice" data-testid="previous-key">
                The previous key still works until <arb-time [value]="previous.validUntil" /> ({{
                  previousUse(previous)
                }}).
              </p>
            } @else {
              <p class="muted">No replaced key is still working.</p>
            }
          </ng-template>
        </section>

        <section class="card pad" aria-labelledby="state-title">
          <h2 id="state-title">State</h2>
          <label class="check" *arbCan="'editor'; else stateBadge">
            <input
              type="checkbox"
              role="switch"
              [checked]="p.active"
              [disabled]="busy()"
              (change)="setActive(p, $any($event.target).checked)"
            />
            Proxy active
          </label>
          <ng-template #stateBadge>
            <p>
              <span class="badge" [class.ok]="p.active">{{ p.active ? 'Active' : 'Inactive' }}</span>
            </p>
          </ng-template>
          <p class="hint">An inactive proxy refuses every call with 401; its key and allowlist are kept.</p>
          <div class="form-actions" *arbCan="'editor'">
            <button type="button" class="danger" (click)="remove(p)" [disabled]="busy()">Delete proxy</button>
          </div>
          @if (action.notice(); as m) {
            <p [class]="m.ok ? 'success' : 'error'" [attr.role]="m.ok ? 'status' : 'alert'">{{ m.text }}</p>
          }
        </section>

        <section class="card pad" aria-labelledby="limits-title">
          <h2 id="limits-title">Rate limit and responses</h2>
          <arb-limits-form
            *arbCan="'editor'; else limitsSummary"
            [value]="{ rateLimit: p.rateLimit, scrub: p.scrub }"
            [busy]="busy()"
            labelledBy="limits-title"
            (save)="saveLimits(p, $event)"
          />
          <ng-template #limitsSummary
            ><arb-limits-summary [value]="{ rateLimit: p.rateLimit, scrub: p.scrub }"
          /></ng-template>
          @if (limits.notice(); as m) {
            <p [class]="m.ok ? 'success' : 'error'" [attr.role]="m.ok ? 'status' : 'alert'">{{ m.text }}</p>
          }
        </section>

        <section class="card pad" aria-labelledby="learning-title">
          <h2 id="learning-title">Learning mode</h2>
          <arb-learning-control
            *arbCan="'editor'; else learningState"
            [proxyId]="p.id"
            [until]="p.learningUntil"
            (changed)="context.update($event)"
          />
          <ng-template #learningState><arb-learning-state [until]="p.learningUntil" /></ng-template>
        </section>
      </div>
    }
  `,
  styles: `
    .howto {
      margin-top: 1rem;
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
