import { AppEntity } from '@arrbiter/server/apps';
import { AUTH_ENTITIES } from '@arrbiter/server/auth';
import { OpenApiDocumentEntity } from '@arrbiter/server/catalog';
import { ProxyEntity } from '@arrbiter/server/proxies';
import { ChangeEntity, RevisionEntity } from '@arrbiter/server/history';
import { ServiceEntity } from '@arrbiter/server/services';
import { SettingEntity } from '@arrbiter/server/template-sync';
import { TemplateEntity } from '@arrbiter/server/templates';
import { AccessWarningEntity } from '@arrbiter/server/warnings';

/** Every entity of every domain: what the DataSource maps and what migrations must match. */
export const ENTITIES = [
  ...AUTH_ENTITIES,
  ServiceEntity,
  OpenApiDocumentEntity,
  AppEntity,
  ProxyEntity,
  AccessWarningEntity,
  TemplateEntity,
  RevisionEntity,
  ChangeEntity,
  SettingEntity,
];
