/** A proxy as a notification names it: ids for links, names for people. */
export interface ProxySubject {
  id: string;
  appId: string;
  appName: string;
  serviceId: string;
  serviceName: string;
}

/** A service as a notification names it. */
export interface ServiceSubject {
  id: string;
  name: string;
  type: string;
}

/**
 * Something a webhook can be told about, as the module where it happened raises it (only there: never
 * again on another replica from the change relay). Never carries a key or other secret.
 */
export type NotificationEvent =
  | {
      type: 'warning.new';
      proxy: ProxySubject;
      /** Lower case, as stored. */
      method: string;
      /** The resolved route, or null when the path matched none. */
      route: string | null;
      /** What warnings of the proxy are grouped by: the route, or the path without one. */
      routeKey: string;
      /** The canonical path of the call that was refused (never its query). */
      path: string;
      /** `open`: refused by the allowlist; `rate-limited`: by the proxy's rate limit. */
      status: 'open' | 'rate-limited';
      /** Refused again after it had been granted (a grant taken back). */
      reopened: boolean;
    }
  | { type: 'learning.ended'; proxy: ProxySubject; reason: 'deadline' | 'stopped'; actor: string }
  | { type: 'template-sync.failed'; error: string; actor: string }
  | {
      type: 'template-sync.changed';
      added: string[];
      changed: string[];
      deleted: string[];
      /** Proxies whose effective allowlist the sync changed. */
      proxies: number;
      commit: string | null;
      summary: string;
      actor: string;
    }
  | { type: 'service.unreachable'; service: ServiceSubject; error: string }
  | { type: 'service.recovered'; service: ServiceSubject; downSince: Date | null }
  | {
      type: 'key.rotated';
      proxy: ProxySubject;
      actor: string;
      /** Until when the old key keeps working (a grace period), or null: it stopped at once. */
      previousKeyValidUntil: Date | null;
    };

export type NotificationEventOf<T extends NotificationEvent['type']> = Extract<NotificationEvent, { type: T }>;
