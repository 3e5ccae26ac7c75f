import type { PendingTemplateChangeDto } from '@arrbiter/contracts';

/**
 * The widenings of templates in use that a sync held for review. The template-sync module, which
 * depends on this one, holds them and provides the implementation; the templates controller lists
 * them through this port (`GET /api/admin/v1/templates/pending`, before `:id`).
 */
export abstract class PendingTemplateChanges {
  abstract list(): Promise<PendingTemplateChangeDto[]>;
}
