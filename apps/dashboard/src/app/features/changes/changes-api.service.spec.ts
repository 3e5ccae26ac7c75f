import { TestBed } from '@angular/core/testing';
import { setUpHttp } from '../../testing/http';
import { ChangesApiService } from './changes-api.service';

describe(ChangesApiService.name, () => {
  const { expectRequest } = setUpHttp();

  it('pages the audit trail with its filters', async () => {
    const api = TestBed.inject(ChangesApiService);
    const page = api.list({ objectType: 'proxy', actor: 'admin', limit: 50, cursor: null });
    expectRequest('GET', '/api/admin/v1/changes?objectType=proxy&actor=admin&limit=50').flush({
      items: [],
      nextCursor: 'n',
    });
    await expect(page).resolves.toEqual({ items: [], nextCursor: 'n' });
    const next = api.list({ cursor: 'n' });
    expectRequest('GET', '/api/admin/v1/changes?cursor=n').flush({ items: [], nextCursor: null });
    await next;
  });

  it('asks the server to leave out sign-ins with signIns=false', async () => {
    const api = TestBed.inject(ChangesApiService);
    const page = api.list({ signIns: false, limit: 50 });
    expectRequest('GET', '/api/admin/v1/changes?signIns=false&limit=50').flush({ items: [], nextCursor: null });
    await page;
  });
});
