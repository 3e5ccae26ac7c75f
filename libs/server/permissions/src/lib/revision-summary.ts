import type { AllowlistMap, Grant, RevisionKind, RevisionSummary } from '@arrbiter/contracts';
import { diffGrants } from '@arrbiter/shared/allowlist-rules';

const TITLES: Record<RevisionKind, string> = {
  manual: 'Configuration saved',
  'warning-grant': 'Granted from warnings',
  'template-sync': 'Template synced',
  restore: 'Revision restored',
  import: 'Configuration imported',
  'client-fit': 'Fitted to a known client',
  created: 'Proxy created',
  undo: 'Grants undone',
};

function count(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Before and after a change of one proxy: its effective allowlist and active state. */
export interface ProxyStateChange {
  effectiveBefore: AllowlistMap;
  effectiveAfter: AllowlistMap;
  activeBefore: boolean;
  activeAfter: boolean;
}

/** The added and removed effective grants and the one-line text a reader sees in lists. */
export function summarize(kind: RevisionKind, change: ProxyStateChange, title = TITLES[kind]): RevisionSummary {
  const { added, removed } = diffGrants(change.effectiveBefore, change.effectiveAfter);
  const parts: string[] = [];
  if (added.length > 0) parts.push(`${count(added.length, 'grant')} added`);
  if (removed.length > 0) parts.push(`${count(removed.length, 'grant')} removed`);
  const summary: RevisionSummary = { text: '', added, removed };
  if (change.activeBefore !== change.activeAfter) {
    summary.active = { from: change.activeBefore, to: change.activeAfter };
    parts.push(change.activeAfter ? 'activated' : 'deactivated');
  }
  summary.text = `${title}: ${parts.length > 0 ? parts.join(', ') : 'no change to the effective allowlist'}`;
  return summary;
}

function grantList(grants: readonly Grant[]): string {
  const shown = grants.slice(0, 5).map((g) => `${g.method.toUpperCase()} ${g.path}`);
  return grants.length > 5 ? `${shown.join(', ')} and ${grants.length - 5} more` : shown.join(', ');
}

/** The summary with the grants it added and removed (at most five of each named), for recent changes. */
export function describeSummary(summary: RevisionSummary): string {
  const details = [
    summary.added.length > 0 ? `added ${grantList(summary.added)}` : '',
    summary.removed.length > 0 ? `removed ${grantList(summary.removed)}` : '',
  ].filter(Boolean);
  return details.length > 0 ? `${summary.text} (${details.join('; ')})` : summary.text;
}
