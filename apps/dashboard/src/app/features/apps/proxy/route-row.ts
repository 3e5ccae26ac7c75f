/** A row about one method on one route (a refused call, a route's usage). */
export interface MethodRoute {
  method: string;
  route: string;
}

/** The row's identity in a table: one row per method and route. */
export const methodRouteKey = (row: MethodRoute) => `${row.method} ${row.route}`;

/** The row's test id: `<prefix><method>-<route>` (`missing-get-/api/v3/movie`). */
export const methodRouteTestId = (prefix: string) => (row: MethodRoute) => `${prefix}${row.method}-${row.route}`;
