/**
 * Who uses a service. The `proxy` table belongs to the proxies module, which depends on this one: it
 * provides the implementation, and the services module asks through this port.
 */
export abstract class ServiceUsers {
  /** The names of the apps whose proxies use the service, sorted; empty when none does. */
  abstract appNamesOf(serviceId: string): Promise<string[]>;
}
