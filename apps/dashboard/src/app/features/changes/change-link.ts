import type { ChangeDto } from '@arrbiter/contracts';

/** Where a change's object lives in the dashboard, or null when it has no page (sessions, deleted objects). */
export function changeLink(change: ChangeDto): { commands: string[]; queryParams?: Record<string, string> } | null {
  switch (change.objectType) {
    case 'app':
      return change.objectId && !change.action.endsWith('.deleted') ? { commands: ['/apps', change.objectId] } : null;
    case 'proxy':
      if (!change.appId) return null;
      return change.objectId && !change.action.endsWith('.deleted')
        ? { commands: ['/apps', change.appId, 'proxies', change.objectId] }
        : { commands: ['/apps', change.appId] };
    case 'service':
      return { commands: ['/services'] };
    case 'template':
      return { commands: ['/templates'] };
    case 'config':
    case 'settings':
      // Every server-wide setting is on Settings, the template repository's included.
      return { commands: ['/settings'] };
    case 'warning':
      return change.appId
        ? { commands: ['/warnings'], queryParams: { appId: change.appId } }
        : { commands: ['/warnings'] };
    case 'account':
      return { commands: ['/accounts'] };
    case 'token':
      return { commands: ['/tokens'] };
    case 'session':
    case 'openapi':
      return null;
  }
}
