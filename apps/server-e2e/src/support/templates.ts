import type { TemplateDto } from '@arrbiter/contracts';
import type { AdminHttpClient } from './admin-client';

/**
 * Points the server at the template repository in the directory `url` (under its TEMPLATE_ROOT), the
 * whole repository, no periodic sync; syncs it once and returns the templates it then has.
 */
export async function syncTemplates(admin: AdminHttpClient, url: string): Promise<TemplateDto[]> {
  await admin.request('PUT', '/api/admin/v1/settings/template-repository', {
    url,
    ref: '',
    path: '',
    intervalMinutes: 0,
  });
  await admin.request('POST', '/api/admin/v1/templates/sync');
  return admin.request<TemplateDto[]>('GET', '/api/admin/v1/templates');
}
