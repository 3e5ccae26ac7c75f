/** Shapes every admin domain uses: a page of a list, an allowlist in override form, one grant. */

/** A page of a list: pass `nextCursor` back as `?cursor=` for the next page (null: no more). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Stored override form: path → lower-case methods, e.g. `{"/api/v3/movie/{id}": ["get", "put"]}`. */
export type AllowlistMap = Record<string, string[]>;

/** One grant: a lower-case method on an API path. */
export interface Grant {
  path: string;
  method: string;
}
