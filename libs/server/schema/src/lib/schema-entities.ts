import { AppEntity } from '@arrbiter/server/apps/entities';
import { AUTH_ENTITIES } from '@arrbiter/server/auth/entities';
import { OpenApiDocumentEntity } from '@arrbiter/server/catalog/entities';
import { ProxyDefaultsEntity, ProxyEntity } from '@arrbiter/server/proxies/entities';
import { ChangeEntity, RevisionEntity } from '@arrbiter/server/history/entities';
import { NotificationAttemptEntity, WebhookEntity } from '@arrbiter/server/notifications/entities';
import { ServiceEntity, ServiceHealthEntity } from '@arrbiter/server/services/entities';
import { PendingTemplateChangeEntity, SettingEntity } from '@arrbiter/server/template-sync/entities';
import { TemplateEntity } from '@arrbiter/server/templates/entities';
import { UnauthorizedUsageEntity, UsageHourEntity, UsageRouteEntity } from '@arrbiter/server/usage/entities';
import { AccessWarningEntity } from '@arrbiter/server/warnings/entities';

/**
 * Every entity of every domain: what the DataSource maps (`apps/server`'s `DatabaseModule.forRoot`)
 * and what migrations must match (`libs/server/schema/src/lib/migrations.spec.ts`, and the schema builder of
 * `npm run db:migration:generate`). A domain adds its entities through its `entities` entry point.
 */
export const ENTITIES = [
  ...AUTH_ENTITIES,
  ServiceEntity,
  ServiceHealthEntity,
  OpenApiDocumentEntity,
  AppEntity,
  ProxyEntity,
  ProxyDefaultsEntity,
  AccessWarningEntity,
  TemplateEntity,
  RevisionEntity,
  ChangeEntity,
  SettingEntity,
  PendingTemplateChangeEntity,
  UsageHourEntity,
  UsageRouteEntity,
  UnauthorizedUsageEntity,
  WebhookEntity,
  NotificationAttemptEntity,
];
