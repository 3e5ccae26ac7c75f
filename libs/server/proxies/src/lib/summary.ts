import type { AllowlistMap, RevisionKind, RevisionSummary } from '@arrbiter/contracts';
import { diffGrants } from '@arrbiter/server/catalog';

const TITLES: Record<RevisionKind, string> = {
  manual: 'Configuration saved',
  'warning-grant': 'Granted from warnings',
  'template-sync': 'Template synced',
  restore: 'Revision restored',
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
