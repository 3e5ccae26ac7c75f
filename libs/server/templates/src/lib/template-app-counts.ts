/**
 * How many apps use each template. The `app` table belongs to the apps module, which depends on this
 * one: it provides the implementation, and the templates module asks through this port.
 */
export abstract class TemplateAppCounts {
  /**
   * The number of apps of each template given, or of every template in use when none are given;
   * templates no app uses may be left out (0).
   */
  abstract countFor(templateIds?: readonly string[]): Promise<Map<string, number>>;
}
