import { MigrationInterface } from 'typeorm';
import { AccessWarningSorts1795842900000 } from './1795842900000-AccessWarningSorts';
import { UnauthorizedUsage1795842897222 } from './1795842897222-UnauthorizedUsage';
import { AdminPasswordGenerated1795814700000 } from './1795814700000-AdminPasswordGenerated';
import { AppKnownClient1795814600000 } from './1795814600000-AppKnownClient';
import { AccessWarningOtherPaths1795814500000 } from './1795814500000-AccessWarningOtherPaths';
import { PendingTemplateChanges1795814356407 } from './1795814356407-PendingTemplateChanges';
import { SsoIdentityIssuer1795814297478 } from './1795814297478-SsoIdentityIssuer';
import { AdminStaff1795494715492 } from './1795494715492-AdminStaff';
import { NotificationsAndServiceHealth1795494099845 } from './1795494099845-NotificationsAndServiceHealth';
import { ProxyPreviousKey1795493737084 } from './1795493737084-ProxyPreviousKey';
import { UsageCounters1795490322594 } from './1795490322594-UsageCounters';
import { ReplicaChanges1795481292383 } from './1795481292383-ReplicaChanges';
import { ProxyLimitsAndScrubbing1795480245109 } from './1795480245109-ProxyLimitsAndScrubbing';
import { AppsByName1795469092158 } from './1795469092158-AppsByName';
import { TemplateRepositorySettings1795276983424 } from './1795276983424-TemplateRepositorySettings';
import { TemplatesRevisionsChanges1795276063170 } from './1795276063170-TemplatesRevisionsChanges';
import { ProxyCore1795267688566 } from './1795267688566-ProxyCore';
import { Initial1795265866730 } from './1795265866730-Initial';

/** Every migration, in order. Generated with `npm run db:migration:generate -- <Name>`. */
export const MIGRATIONS: (new () => MigrationInterface)[] = [
  Initial1795265866730,
  ProxyCore1795267688566,
  TemplatesRevisionsChanges1795276063170,
  TemplateRepositorySettings1795276983424,
  AppsByName1795469092158,
  ProxyLimitsAndScrubbing1795480245109,
  ReplicaChanges1795481292383,
  UsageCounters1795490322594,
  ProxyPreviousKey1795493737084,
  NotificationsAndServiceHealth1795494099845,
  AdminStaff1795494715492,
  SsoIdentityIssuer1795814297478,
  PendingTemplateChanges1795814356407,
  AccessWarningOtherPaths1795814500000,
  AppKnownClient1795814600000,
  AdminPasswordGenerated1795814700000,
  UnauthorizedUsage1795842897222,
  AccessWarningSorts1795842900000,
];
