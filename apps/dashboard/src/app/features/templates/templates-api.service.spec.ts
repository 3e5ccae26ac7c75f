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

  it("asks for every template's fit in one request, for their own clients or one named", async () => {
    const own = api().fits();
    expectRequest('GET', '/api/admin/v1/templates/fit').flush({ items: [] });
    expect(await own).toEqual({ items: [] });
    const named = api().fits('maintainerr');
    expectRequest('GET', '/api/admin/v1/templates/fit?client=maintainerr').flush({ items: [] });
    await named;
  });

  it("asks for a template's fit, for its own client or one named", async () => {
    const own = api().fit('t1');
    expectRequest('GET', '/api/admin/v1/templates/t1/fit').flush({ services: [] });
    await own;
    const named = api().fit('t1', 'maintainerr');
    expectRequest('GET', '/api/admin/v1/templates/t1/fit?client=maintainerr').flush({ services: [] });
    await named;
  });

  it('downloads the suggested file of one service type as the text the server sends', async () => {
    const file = '{\n    "/api/v3/movie": [\n        "get"\n    ]\n}\n';
    const suggested = api().suggested('t1', 'maintainerr', 'radarr');
    const request = expectRequest('GET', '/api/admin/v1/templates/t1/suggested?client=maintainerr&serviceType=radarr');
    expect(request.request.responseType).toBe('text');
    request.flush(file);
    await expect(suggested).resolves.toBe(file);
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

  it('lists the held template changes, and applies or dismisses one', async () => {
    const list = api().pending();
    expectRequest('GET', '/api/admin/v1/templates/pending').flush([]);
    await expect(list).resolves.toEqual([]);
    const apply = api().applyPending('t1');
    expectRequest('POST', '/api/admin/v1/templates/t1/pending/apply').flush({ template: { id: 't1' }, proxies: [] });
    await apply;
    const dismiss = api().dismissPending('t1');
    expectRequest('POST', '/api/admin/v1/templates/t1/pending/dismiss').flush(null, {
      status: 204,
      statusText: 'No Content',
    });
    await dismiss;
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
