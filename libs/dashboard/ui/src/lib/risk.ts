import { booleanAttribute, ChangeDetectionStrategy, Component, computed, input } from '@angular/core';
import type { RouteRiskDto } from '@arrbiter/contracts';
import type { ConfirmService } from './confirm.service';

/** Whether granting a call with this risk asks first (sensitive or destructive). */
export function isRisky(risk: RouteRiskDto | null | undefined): risk is RouteRiskDto {
  return !!risk && (risk.sensitive || risk.destructive);
}

/** "Sensitive", "Destructive" or "Sensitive, destructive"; null when neither. */
export function riskLabel(risk: RouteRiskDto | null | undefined): string | null {
  if (!risk) return null;
  const parts = [risk.sensitive ? 'Sensitive' : null, risk.destructive ? 'Destructive' : null].filter(Boolean);
  return parts.length ? parts.join(', ').replace(', Destructive', ', destructive') : null;
}

/** A call a grant opens: "GET /api/v3/system/backup" and its risk. */
export interface GrantCall {
  label: string;
  risk: RouteRiskDto | null | undefined;
}

/**
 * Asks before a grant that opens a sensitive or destructive call, naming each with its reason; true
 * at once when none of `calls` is risky.
 */
export function confirmGrant(
  confirm: ConfirmService,
  calls: readonly GrantCall[],
  options: { confirmLabel?: string } = {},
): Promise<boolean> {
  const risky = calls.filter((c) => isRisky(c.risk));
  if (risky.length === 0) return Promise.resolve(true);
  const one = risky.length === 1;
  return confirm.ask({
    title: one ? `Grant ${risky[0].label}?` : `Grant ${risky.length} sensitive or destructive calls?`,
    message: one
      ? `This opens ${risky[0].label}: ${risky[0].risk?.reason}`
      : 'These open sensitive or destructive calls. Grant only what the client needs.',
    items: risky.map((c) => `${c.label} (${riskLabel(c.risk)}): ${c.risk?.reason}`),
    confirmLabel: one ? 'Grant' : `Grant ${risky.length}`,
    danger: true,
    ...(options.confirmLabel ? { confirmLabel: options.confirmLabel } : {}),
  });
}

/** A sensitive or destructive route's badge (text, not colour alone), with its reason when `reason` is set. */
@Component({
  selector: 'arb-risk-badge',
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    @if (label(); as text) {
      <span
        class="badge"
        [class.danger]="risk()?.sensitive"
        [class.warn]="!risk()?.sensitive"
        data-testid="risk-badge"
        >{{ text }}</span
      >
      @if (reason()) {
        &ngsp;<span class="hint risk-reason">{{ risk()?.reason }}</span>
      }
    }
  `,
  styles: `
    :host {
      display: inline;
    }
    .risk-reason {
      display: block;
    }
  `,
})
export class RiskBadgeComponent {
  readonly risk = input<RouteRiskDto | null | undefined>(null);
  /** Shows the one-line reason under the badge. */
  readonly reason = input(false, { transform: booleanAttribute });
  protected readonly label = computed(() => riskLabel(this.risk()));
}
