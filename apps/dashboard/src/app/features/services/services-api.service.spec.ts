import { HttpErrorResponse } from '@angular/common/http';
import { TestBed } from '@angular/core/testing';
import { setUpHttp } from '../../testing/http';
import { ServicesApiService } from './services-api.service';
import { describeError } from '@arrbiter/dashboard/ui';

describe(ServicesApiService.name, () => {
  const { expectRequest } = setUpHttp();
  const api = () => TestBed.inject(ServicesApiService);

  it('lists, reads, creates, updates, deletes and pings services', async () => {
    const list = api().list();
    expectRequest('GET', '/api/admin/v1/services').flush([]);
    await expect(list).resolves.toEqual([]);

    const get = api().get('s1');
    expectRequest('GET', '/api/admin/v1/services/s1').flush({ id: 's1' });
    await expect(get).resolves.toEqual({ id: 's1' });

    const create = api().create({ baseUrl: 'http://radarr:7878', apiKey: 'k' });
    const post = expectRequest('POST', '/api/admin/v1/services');
    expect(post.request.body).toEqual({ baseUrl: 'http://radarr:7878', apiKey: 'k' });
    post.flush({ id: 's2' }, { status: 201, statusText: 'Created' });
    await create;

    const update = api().update('s2', { baseUrl: 'http://radarr:7879' });
    const patch = expectRequest('PATCH', '/api/admin/v1/services/s2');
    expect(patch.request.body).toEqual({ baseUrl: 'http://radarr:7879' });
    patch.flush({ id: 's2' });
    await update;

    const remove = api().remove('s2');
    expectRequest('DELETE', '/api/admin/v1/services/s2').flush(null, { status: 204, statusText: 'No Content' });
    await remove;

    const ping = api().ping('s1');
    expectRequest('GET', '/api/admin/v1/services/s1/ping').flush({ reachable: true, latencyMs: 3 });
    await expect(ping).resolves.toMatchObject({ reachable: true });
  });

  it('passes the server’s discovery failure on as the error', async () => {
    const create = api().create({ baseUrl: 'http://radarr:7878', apiKey: 'wrong' });
    expectRequest('POST', '/api/admin/v1/services').flush(
      { statusCode: 422, error: 'Unprocessable Entity', message: 'The upstream refused the API key (401)' },
      { status: 422, statusText: 'Unprocessable Entity' },
    );
    const error = await create.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HttpErrorResponse);
    expect(describeError(error)).toBe('The upstream refused the API key (401)');
  });
});
