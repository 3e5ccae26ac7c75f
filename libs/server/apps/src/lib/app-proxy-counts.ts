/**
 * How many proxies each app has. The `proxy` table belongs to the proxies module, which depends on
 * this one: it provides the implementation, and the apps module asks through this port.
 */
export abstract class AppProxyCounts {
  /** The number of proxies of each app given; apps without proxies may be left out (0). */
  abstract countFor(appIds: readonly string[]): Promise<Map<string, number>>;
}
