import { TestRequest } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { setUpHttp } from '../../testing/http';
import { ProxiesApiService } from './proxies-api.service';

describe(ProxiesApiService.name, () => {
  const { expectRequest } = setUpHttp();
  const api = () => TestBed.inject(ProxiesApiService);

  /** Calls, answers with `answer`, and returns the request for more checks. */
  async function call<T>(
    promise: Promise<T>,
    method: string,
    url: string,
    answer: Parameters<TestRequest['flush']>[0] = {},
  ) {
    const request = expectRequest(method, url);
    request.flush(answer);
    await promise;
    return request.request;
  }

  it('manages the proxies of an app', async () => {
    await call(api().listForApp('a1'), 'GET', '/api/admin/v1/apps/a1/proxies', []);
    const create = await call(api().create('a1', 's1'), 'POST', '/api/admin/v1/apps/a1/proxies');
    expect(create.body).toEqual({ serviceId: 's1' });
    await call(api().get('p1'), 'GET', '/api/admin/v1/proxies/p1');
    expect((await call(api().setActive('p1', false), 'PATCH', '/api/admin/v1/proxies/p1')).body).toEqual({
      active: false,
    });
    await call(api().remove('p1'), 'DELETE', '/api/admin/v1/proxies/p1', null);
    const rotate = await call(api().rotateKey('p1'), 'POST', '/api/admin/v1/proxies/p1/rotate-key', { key: 'k' });
    expect(rotate.body).toEqual({ graceMinutes: 0 });
  });

  it('rotates a key with a grace period, and ends the grace period', async () => {
    const rotate = await call(api().rotateKey('p1', 1440), 'POST', '/api/admin/v1/proxies/p1/rotate-key', {
      key: 'k',
      previousKeyValidUntil: '2030-01-01T00:00:00.000Z',
    });
    expect(rotate.body).toEqual({ graceMinutes: 1440 });
    await call(api().endGrace('p1'), 'DELETE', '/api/admin/v1/proxies/p1/previous-key', null);
  });

  it('reads and saves the allowlist with the full overrides map', async () => {
    await call(api().allowlist('p1'), 'GET', '/api/admin/v1/proxies/p1/allowlist');
    const overrides = { '/api/v3/movie': ['get'], '/api/v3/system/backup': [] };
    const put = await call(
      api().saveConfig('p1', { overrides, active: true }),
      'PUT',
      '/api/admin/v1/proxies/p1/config',
    );
    expect(put.body).toEqual({ overrides, active: true });
  });

  it('asks for the endpoint catalog with only the filters given', async () => {
    await call(api().endpoints('p1'), 'GET', '/api/admin/v1/proxies/p1/endpoints');
    await call(
      api().endpoints('p1', { search: '/movie', tag: '' }),
      'GET',
      '/api/admin/v1/proxies/p1/endpoints?search=/movie',
    );
    await call(
      api().endpoints('p1', { search: 'x', tag: 'Movie' }),
      'GET',
      '/api/admin/v1/proxies/p1/endpoints?search=x&tag=Movie',
    );
  });

  it('pages revisions, diffs and restores them', async () => {
    await call(api().revisions('p1', { limit: 20 }), 'GET', '/api/admin/v1/proxies/p1/revisions?limit=20');
    await call(
      api().revisions('p1', { limit: 20, cursor: 'abc' }),
      'GET',
      '/api/admin/v1/proxies/p1/revisions?limit=20&cursor=abc',
    );
    await call(api().revisionDiff('p1', 'r1'), 'GET', '/api/admin/v1/proxies/p1/revisions/r1/diff');
    await call(api().restoreRevision('p1', 'r1'), 'POST', '/api/admin/v1/proxies/p1/revisions/r1/restore');
  });

  it('sets one grant on top of the configuration as saved now, keeping the state and the other overrides', async () => {
    const granted = api().setGrant('p1', '/api/v3/movie/{id}', 'put', true);
    expectRequest('GET', '/api/admin/v1/proxies/p1/allowlist').flush({
      template: { '/api/v3/movie': ['get'], '/api/v3/movie/{id}': ['get'] },
      overrides: { '/api/v3/calendar': ['get'] },
      effective: {},
    });
    expectRequest('GET', '/api/admin/v1/proxies/p1').flush({ id: 'p1', active: false });
    await new Promise((resolve) => setTimeout(resolve));
    const put = await call(granted, 'PUT', '/api/admin/v1/proxies/p1/config');
    expect(put.body).toEqual({
      overrides: { '/api/v3/calendar': ['get'], '/api/v3/movie/{id}': ['get', 'put'] },
      active: false,
    });

    const revoked = api().setGrant('p1', '/api/v3/movie', 'get', false);
    expectRequest('GET', '/api/admin/v1/proxies/p1/allowlist').flush({
      template: { '/api/v3/movie': ['get', 'post'] },
      overrides: {},
      effective: {},
    });
    expectRequest('GET', '/api/admin/v1/proxies/p1').flush({ id: 'p1', active: true });
    await new Promise((resolve) => setTimeout(resolve));
    const put2 = await call(revoked, 'PUT', '/api/admin/v1/proxies/p1/config');
    expect(put2.body).toEqual({ overrides: { '/api/v3/movie': ['post'] }, active: true });
  });

  it("asks for the proxy's fit with the client named, or the template's client without one", async () => {
    await call(api().fit('p1'), 'GET', '/api/admin/v1/proxies/p1/fit');
    await call(api().fit('p1', ''), 'GET', '/api/admin/v1/proxies/p1/fit');
    await call(api().fit('p1', 'maintainerr'), 'GET', '/api/admin/v1/proxies/p1/fit?client=maintainerr');
    await call(
      api().fit('p1', 'maintainerr', 30),
      'GET',
      '/api/admin/v1/proxies/p1/fit?client=maintainerr&unusedDays=30',
    );
  });

  it('applies a fit with the whole request', async () => {
    const request = {
      client: 'maintainerr',
      grantMissing: true,
      include: { sensitive: [{ method: 'post', route: '/api/v3/command' }] },
      revoke: [{ method: 'get', route: '/api/v3/tag' }],
      unusedDays: 30,
    };
    const post = await call(api().applyFit('p1', request), 'POST', '/api/admin/v1/proxies/p1/fit/apply', {
      revision: null,
      fit: {},
    });
    expect(post.body).toEqual(request);
  });

  it('starts and stops learning mode and grants what was learned', async () => {
    const until = '2030-01-02T03:04:05.000Z';
    expect((await call(api().startLearning('p1', until), 'POST', '/api/admin/v1/proxies/p1/learning')).body).toEqual({
      until,
    });
    await call(api().stopLearning('p1'), 'DELETE', '/api/admin/v1/proxies/p1/learning');
    await call(api().grantLearned('p1'), 'POST', '/api/admin/v1/proxies/p1/learned/grant', {
      revision: null,
      granted: [],
    });
  });
});
