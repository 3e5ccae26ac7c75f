/** The audit trail (`GET /api/admin/v1/changes`). */

/** What a recent change is about (the audit trail's filter). */
export const CHANGE_OBJECT_TYPES = [
  'service',
  'app',
  'proxy',
  'template',
  'warning',
  'session',
  'settings',
  'openapi',
  'config',
  'account',
  'token',
] as const;

export type ChangeObjectType = (typeof CHANGE_OBJECT_TYPES)[number];

/** One entry of the audit trail (`GET /api/admin/v1/changes`). */
export interface ChangeDto {
  id: string;
  at: string;
  /** The admin's username, or `system`. */
  actor: string;
  /** `service.created`, `proxy.key-rotated`, `proxy.config-saved`, `session.signed-in`, … */
  action: string;
  objectType: ChangeObjectType;
  objectId: string | null;
  /** The object's name when it was changed (app name, service name, template name, username). */
  objectName: string | null;
  /** For links: the app a proxy belongs to. */
  appId: string | null;
  summary: string;
}
