import { TestBed } from '@angular/core/testing';
import { setUpHttp } from '../../testing/http';
import { TemplatesApiService } from './templates-api.service';

describe(TemplatesApiService.name, () => {
  const { expectRequest } = setUpHttp();
  const api = () => TestBed.inject(TemplatesApiService);

  it('lists and reads templates', async () => {
    const list = api().list();
    expectRequest('GET', '/api/admin/v1/templates').flush([]);
    await list;
    const get = api().get('t1');
    expectRequest('GET', '/api/admin/v1/templates/t1').flush({ id: 't1' });
    await get;
  });

  it('reads and saves the repository settings', async () => {
    const read = api().repository();
    expectRequest('GET', '/api/admin/v1/settings/template-repository').flush({});
    await read;
    const settings = { url: 'https://example.com/t.git', ref: 'main', path: 'templates', intervalMinutes: 60 };
    const save = api().saveRepository(settings);
    const put = expectRequest('PUT', '/api/admin/v1/settings/template-repository');
    expect(put.request.body).toEqual(settings);
    put.flush({ ...settings, lastSync: null });
    await save;
  });

  it('previews a sync with a dry run, and syncs', async () => {
    const preview = api().sync(true);
    expectRequest('POST', '/api/admin/v1/templates/sync?dryRun=true').flush({ dryRun: true });
    await expect(preview).resolves.toEqual({ dryRun: true });
    const sync = api().sync(false);
    expectRequest('POST', '/api/admin/v1/templates/sync?dryRun=false').flush({ dryRun: false });
    await sync;
  });
});
