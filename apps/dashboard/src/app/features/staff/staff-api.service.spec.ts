import { TestBed } from '@angular/core/testing';
import { setUpHttp } from '../../testing/http';
import { StaffApiService } from './staff-api.service';

describe(StaffApiService.name, () => {
  const { expectRequest } = setUpHttp();
  const api = () => TestBed.inject(StaffApiService);

  it('reads and ends the caller’s sessions and changes their password', async () => {
    const sessions = api().sessions();
    expectRequest('GET', '/api/auth/sessions').flush([]);
    await expect(sessions).resolves.toEqual([]);

    const end = api().endSession('s1');
    expectRequest('DELETE', '/api/auth/sessions/s1').flush(null, { status: 204, statusText: 'No Content' });
    await end;

    const change = api().changePassword({ currentPassword: 'old', newPassword: 'a new passphrase' });
    const put = expectRequest('PUT', '/api/auth/password');
    expect(put.request.body).toEqual({ currentPassword: 'old', newPassword: 'a new passphrase' });
    put.flush(null, { status: 204, statusText: 'No Content' });
    await change;
  });

  it('lists, creates and revokes API tokens', async () => {
    const list = api().tokens();
    expectRequest('GET', '/api/admin/v1/tokens').flush([]);
    await list;

    const create = api().createToken({ name: 'backup', role: 'viewer', expiresAt: null });
    const post = expectRequest('POST', '/api/admin/v1/tokens');
    expect(post.request.body).toEqual({ name: 'backup', role: 'viewer', expiresAt: null });
    post.flush({ id: 't1', token: 'arb_x' }, { status: 201, statusText: 'Created' });
    await expect(create).resolves.toEqual({ id: 't1', token: 'arb_x' });

    const revoke = api().revokeToken('t1');
    expectRequest('DELETE', '/api/admin/v1/tokens/t1').flush(null, { status: 204, statusText: 'No Content' });
    await revoke;
  });

  it('manages accounts', async () => {
    const list = api().accounts();
    expectRequest('GET', '/api/admin/v1/admins').flush([]);
    await list;

    const create = api().createAccount({ username: 'sam', role: 'editor' });
    const post = expectRequest('POST', '/api/admin/v1/admins');
    expect(post.request.body).toEqual({ username: 'sam', role: 'editor' });
    post.flush({ id: 'a1' }, { status: 201, statusText: 'Created' });
    await create;

    const update = api().updateAccount('a1', { role: 'viewer' });
    const patch = expectRequest('PATCH', '/api/admin/v1/admins/a1');
    expect(patch.request.body).toEqual({ role: 'viewer' });
    patch.flush({ id: 'a1' });
    await update;

    const remove = api().removeAccount('a1');
    expectRequest('DELETE', '/api/admin/v1/admins/a1').flush(null, { status: 204, statusText: 'No Content' });
    await remove;
  });
});
