import type { SessionStateResponse } from '@arrbiter/contracts';
import request from 'supertest';
import { startTestApp, TestApp } from '../testing/test-app';

/**
 * `GET /api/auth/state`: the dashboard's first question on every load. Always 200 (a 401 there is an
 * error in every browser's console), with the same session `GET /api/auth/session` answers.
 */
describe('GET /api/auth/state', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none' });
  });
  afterAll(() => t.close());

  const state = async (cookie?: string) => {
    const call = request(t.app.getHttpServer()).get('/api/auth/state');
    const response = await (cookie ? call.set('Cookie', cookie) : call).expect(200);
    expect(response.headers['cache-control']).toBe('no-store');
    return response.body as SessionStateResponse;
  };

  it('says signed out, with 200, to a browser without a session or with one that is not a session', async () => {
    expect(await state()).toEqual({ signedIn: false });
    expect(await state('arrbiter_session=not-a-session')).toEqual({ signedIn: false });
    // /api/auth/session still answers 401: API clients rely on it.
    await request(t.app.getHttpServer()).get('/api/auth/session').expect(401);
  });

  it('gives a signed-in browser the session /api/auth/session gives', async () => {
    const admin = await t.admin();
    const cookie = await t.signIn();
    const session = (await admin.get('/api/auth/session').expect(200)).body as unknown;
    expect(await state(cookie)).toEqual({ signedIn: true, session });
  });

  it('says signed out once the session is signed out', async () => {
    const cookie = await t.signIn();
    expect((await state(cookie)).signedIn).toBe(true);
    await request(t.app.getHttpServer())
      .post('/api/auth/sign-out')
      .set('Cookie', cookie)
      .set('Origin', t.config.publicOrigin)
      .expect(204);
    expect(await state(cookie)).toEqual({ signedIn: false });
  });
});
