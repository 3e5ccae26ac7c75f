import { Injectable } from '@nestjs/common';

/** What changed: each in-memory view of that data rebuilds itself. */
export type ChangeTopic = 'services' | 'apps' | 'proxies' | 'catalog' | 'templates';

/** A change: its topic, and the id of the one object that changed when it is one. */
export interface Change {
  topic: ChangeTopic;
  id?: string;
}

type Listener = (change: Change) => Promise<void> | void;

/**
 * In-process change notifications. `publish` resolves once every listener has finished, so an admin
 * write that awaits it answers only after the proxy's in-memory state reflects the change.
 */
@Injectable()
export class ChangeBus {
  private readonly listeners = new Set<Listener>();

  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async publish(topic: ChangeTopic, id?: string): Promise<void> {
    const change: Change = { topic, id };
    await Promise.all([...this.listeners].map(async (listener) => listener(change)));
  }
}
