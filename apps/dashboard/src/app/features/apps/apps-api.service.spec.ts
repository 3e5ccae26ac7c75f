import { TestBed } from '@angular/core/testing';
import { setUpHttp } from '../../testing/http';
import { AppsApiService } from './apps-api.service';

describe(AppsApiService.name, () => {
  const { expectRequest } = setUpHttp();
  const api = () => TestBed.inject(AppsApiService);

  it('creates an app with no template', async () => {
    const create = api().create({ name: 'Overseerr', slug: 'overseerr', templateId: null, active: true });
    const request = expectRequest('POST', '/api/admin/v1/apps');
    expect(request.request.body).toEqual({ name: 'Overseerr', slug: 'overseerr', templateId: null, active: true });
    request.flush({ id: 'a1' });
    await expect(create).resolves.toEqual({ id: 'a1' });
  });

  it('lists, reads, updates, deletes and saves as a template', async () => {
    const list = api().list();
    expectRequest('GET', '/api/admin/v1/apps').flush({ items: [], nextCursor: null });
    await expect(list).resolves.toEqual({ items: [], nextCursor: null });
    const get = api().get('a1');
    expectRequest('GET', '/api/admin/v1/apps/a1').flush({ id: 'a1' });
    await get;
    const update = api().update('a1', { active: false });
    const patch = expectRequest('PATCH', '/api/admin/v1/apps/a1');
    expect(patch.request.body).toEqual({ active: false });
    patch.flush({ id: 'a1' });
    await update;
    const remove = api().remove('a1');
    expectRequest('DELETE', '/api/admin/v1/apps/a1').flush(null);
    await remove;
    const save = api().saveAsTemplate('a1', { name: 'Mine' });
    const post = expectRequest('POST', '/api/admin/v1/apps/a1/save-as-template');
    expect(post.request.body).toEqual({ name: 'Mine' });
    post.flush({ id: 't1', name: 'Mine' });
    await expect(save).resolves.toMatchObject({ name: 'Mine' });
  });

  it('clones an app under a new name and slug', async () => {
    const clone = api().clone('a1', { name: 'Copy', slug: 'copy' });
    const post = expectRequest('POST', '/api/admin/v1/apps/a1/clone');
    expect(post.request.body).toEqual({ name: 'Copy', slug: 'copy' });
    post.flush({ id: 'a2', name: 'Copy', slug: 'copy' });
    await expect(clone).resolves.toMatchObject({ id: 'a2' });
  });

  it('sends the page, search and filters given, and leaves out the empty ones', async () => {
    const list = api().list({ q: '50% off', templateId: 'none', state: 'inactive', limit: 50, cursor: 'c1' });
    expectRequest('GET', '/api/admin/v1/apps?q=50%25%20off&templateId=none&state=inactive&limit=50&cursor=c1').flush({
      items: [{ id: 'a1' }],
      nextCursor: null,
    });
    await expect(list).resolves.toEqual({ items: [{ id: 'a1' }], nextCursor: null });
    const empty = api().list({ q: '', templateId: undefined, state: undefined, cursor: undefined });
    expectRequest('GET', '/api/admin/v1/apps').flush({ items: [], nextCursor: null });
    await empty;
  });

  it('reads every page for listAll, with the filter on each', async () => {
    const all = api().listAll({ state: 'active' });
    expectRequest('GET', '/api/admin/v1/apps?state=active&limit=200').flush({
      items: [{ id: 'a1' }],
      nextCursor: 'c1',
    });
    // The next page is asked for once the first has been read.
    await new Promise((resolve) => setTimeout(resolve));
    expectRequest('GET', '/api/admin/v1/apps?state=active&limit=200&cursor=c1').flush({
      items: [{ id: 'a2' }],
      nextCursor: null,
    });
    await expect(all).resolves.toEqual([{ id: 'a1' }, { id: 'a2' }]);
  });
});
