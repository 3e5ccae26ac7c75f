import { Inject, Injectable, Optional } from '@nestjs/common';
import { Metrics, ReloadKind } from '@arrbiter/server/metrics';

/**
 * What changed: each in-memory view of that data rebuilds itself. `settings` is the template
 * repository's; `all` asks every view to reload everything (after the change listener reconnects,
 * or when the periodic check finds a change that did not arrive). `recent-calls` changes no data: a
 * proxy's view of its first calls was opened (id: the proxy), and every replica starts recording them.
 */
export type ChangeTopic =
  | 'services'
  | 'apps'
  | 'proxies'
  | 'catalog'
  | 'templates'
  | 'settings'
  | 'recent-calls'
  | 'all';

/** Where a change came from when not from this process: another replica, a reconnect, the check. */
export type ChangeOrigin = 'remote' | 'reconnect' | 'check';

/** A change: its topic, and the id of the one object that changed when it is one. */
export interface Change {
  topic: ChangeTopic;
  id?: string;
  /** Absent for a change made in this process. */
  origin?: ChangeOrigin;
}

type Listener = (change: Change) => Promise<void> | void;

/** Sends this process's changes to the other replicas (`ChangeRelay`, over PostgreSQL NOTIFY). */
export interface ChangeSender {
  send(change: Change): Promise<void>;
}

/**
 * Change notifications. `publish` resolves once every listener of this process has finished, so an
 * admin write that awaits it answers only after the proxy's in-memory state reflects the change; the
 * change also goes to the other replicas (when a sender is attached), and `deliver` hands theirs to
 * the same listeners, which apply them as they apply local ones.
 */
@Injectable()
export class ChangeBus {
  private readonly listeners = new Set<Listener>();
  private sender?: ChangeSender;

  constructor(@Optional() @Inject(Metrics) private readonly metrics: Metrics | null = null) {}

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Attaches the sender that tells the other replicas (one at most). */
  sendWith(sender: ChangeSender | undefined): void {
    this.sender = sender;
  }

  async publish(topic: ChangeTopic, id?: string): Promise<void> {
    const change: Change = { topic, id };
    // Sent as soon as it is applied here: the other replicas apply it while this one answers.
    await Promise.all([this.deliver(change), this.sender?.send(change)]);
  }

  /** Hands a change to every listener; resolves once they have all finished. */
  async deliver(change: Change): Promise<void> {
    const kind = reloadKind(change);
    if (kind) this.metrics?.reload(kind, change.origin ?? 'local');
    await Promise.all([...this.listeners].map(async (listener) => listener(change)));
  }
}

/** What the proxy state rebuilds for a change: one proxy, one app, everything, or nothing (settings, recent calls). */
function reloadKind(change: Change): ReloadKind | undefined {
  if (change.topic === 'settings' || change.topic === 'recent-calls') return undefined;
  if (change.id !== undefined && change.topic === 'proxies') return 'proxy';
  if (change.id !== undefined && change.topic === 'apps') return 'app';
  return 'full';
}
