/** Apps (`/api/admin/v1/apps`): the clients that call through proxies, one slug each. */

export interface AppDto {
  id: string;
  name: string;
  slug: string;
  templateId: string | null;
  templateName: string | null;
  /** The known client the app was connected as (`POST /api/admin/v1/known-clients/:id/connect`, or `client:` in CONFIG_FILE). */
  knownClientId: string | null;
  active: boolean;
  proxyCount: number;
  createdAt: string;
  updatedAt: string;
}

export type AppState = 'active' | 'inactive';

/**
 * `GET /api/admin/v1/apps`: apps sorted by name, then id, answered as a `Page<AppDto>` whose
 * `proxyCount` and `templateName` are those of the page's apps.
 */
export interface ListAppsQuery {
  /** 1–200, default 50. */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
  /** A case-insensitive part of the name or slug (`%` and `_` are plain characters). */
  q?: string;
  /** A template's id, or `none` for apps without a template. */
  templateId?: string;
  state?: AppState;
}

export interface CreateAppRequest {
  name: string;
  slug: string;
  templateId: string | null;
  active: boolean;
}

export type UpdateAppRequest = Partial<CreateAppRequest>;

/**
 * `POST /api/admin/v1/apps/:id/clone` → 201 `AppDto`: a new app with the source's template and active
 * state, and a copy of each of its proxies (overrides, active state, rate limit, scrubbing) with a new key.
 */
export interface CloneAppRequest {
  name: string;
  slug: string;
}
