import { TestBed } from '@angular/core/testing';
import { setUpHttp } from '../../testing/http';
import { NotificationsApiService } from './notifications-api.service';

describe(NotificationsApiService.name, () => {
  const { expectRequest } = setUpHttp();
  const api = () => TestBed.inject(NotificationsApiService);

  it('reads and saves the webhooks, sends test messages and pages through attempts', async () => {
    const get = api().get();
    expectRequest('GET', '/api/admin/v1/settings/notifications').flush({ webhooks: [] });
    await expect(get).resolves.toEqual({ webhooks: [] });

    const request = {
      webhooks: [{ id: 'w1', format: 'ntfy' as const, events: ['key.rotated' as const], enabled: true }],
    };
    const save = api().save(request);
    const put = expectRequest('PUT', '/api/admin/v1/settings/notifications');
    expect(put.request.body).toEqual(request);
    put.flush({ webhooks: [] });
    await save;

    const test = api().test('w1');
    const post = expectRequest('POST', '/api/admin/v1/settings/notifications/w1/test');
    post.flush({ event: 'test', at: '2026-01-01T00:00:00.000Z', status: 'delivered', httpStatus: 200 });
    await expect(test).resolves.toMatchObject({ status: 'delivered' });

    const first = api().attempts('w1', null);
    expectRequest('GET', '/api/admin/v1/settings/notifications/w1/attempts?limit=10').flush({
      items: [],
      nextCursor: 'c1',
    });
    await expect(first).resolves.toEqual({ items: [], nextCursor: 'c1' });
    const next = api().attempts('w1', 'c1');
    expectRequest('GET', '/api/admin/v1/settings/notifications/w1/attempts?limit=10&cursor=c1').flush({
      items: [],
      nextCursor: null,
    });
    await next;
  });
});
