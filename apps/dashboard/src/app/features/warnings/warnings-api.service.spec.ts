import { TestBed } from '@angular/core/testing';
import { setUpHttp } from '../../testing/http';
import { WarningsApiService } from './warnings-api.service';

describe(WarningsApiService.name, () => {
  const { expectRequest } = setUpHttp();
  const api = () => TestBed.inject(WarningsApiService);

  it('filters and pages warnings, leaving out empty filters', async () => {
    const all = api().list();
    expectRequest('GET', '/api/admin/v1/warnings').flush({ items: [], nextCursor: null });
    await all;
    const filtered = api().list({ appId: 'a1', proxyId: null, status: 'open', q: 'movie/7', limit: 50, cursor: 'c' });
    expectRequest('GET', '/api/admin/v1/warnings?appId=a1&status=open&q=movie/7&limit=50&cursor=c').flush({
      items: [],
      nextCursor: null,
    });
    await filtered;
  });

  it('grants and dismisses a warning', async () => {
    const grant = api().grant('w1');
    const post = expectRequest('POST', '/api/admin/v1/warnings/w1/grant');
    expect(post.request.body).toEqual({});
    post.flush({ warning: { id: 'w1', status: 'granted' }, revision: {} });
    await expect(grant).resolves.toMatchObject({ warning: { status: 'granted' } });
    const dismiss = api().dismiss('w1');
    expectRequest('POST', '/api/admin/v1/warnings/w1/dismiss').flush({ id: 'w1', status: 'dismissed' });
    await expect(dismiss).resolves.toMatchObject({ status: 'dismissed' });
  });

  it("grants a folded warning's shape when asked", async () => {
    const grant = api().grant('w2', { scope: 'shape' });
    const post = expectRequest('POST', '/api/admin/v1/warnings/w2/grant');
    expect(post.request.body).toEqual({ scope: 'shape' });
    post.flush({ warning: { id: 'w2', status: 'granted' }, revision: {} });
    await grant;
  });
});
