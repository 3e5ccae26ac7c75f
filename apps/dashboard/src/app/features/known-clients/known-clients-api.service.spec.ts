import { TestBed } from '@angular/core/testing';
import { setUpHttp } from '../../testing/http';
import { KnownClientsApiService } from './known-clients-api.service';

describe(KnownClientsApiService.name, () => {
  const { expectRequest } = setUpHttp();
  const api = () => TestBed.inject(KnownClientsApiService);

  it('lists the known clients', async () => {
    const list = api().list();
    expectRequest('GET', '/api/admin/v1/known-clients').flush([{ id: 'maintainerr' }]);
    await expect(list).resolves.toEqual([{ id: 'maintainerr' }]);
  });

  it('reads one client, its id escaped', async () => {
    const one = api().get('cross-seed');
    expectRequest('GET', '/api/admin/v1/known-clients/cross-seed').flush({ id: 'cross-seed' });
    await one;
    const odd = api().get('a/b');
    expectRequest('GET', '/api/admin/v1/known-clients/a%2Fb').flush({ id: 'a/b' });
    await odd;
  });
});
