import { DatabaseLogger } from '@arrbiter/server/database';
import { DataSource } from 'typeorm';
import { startTestApp, TestApp } from '../testing/test-app';

describe('health endpoints', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('GET /health answers ok with no credential and no database query', async () => {
    const counter = t.app.get(DatabaseLogger);
    const before = counter.queryCount;
    await t.http.get('/health').expect(200, { status: 'ok' });
    expect(counter.queryCount).toBe(before);
  });

  it('GET /health/ready answers 200 while the database answers', async () => {
    await t.http.get('/health/ready').expect(200, { status: 'ok', database: 'up' });
  });

  it('keeps the dashboard and proxy paths out of the API 404s', async () => {
    const response = await t.http.get('/api/nothing-here').expect(404);
    expect(response.body).toMatchObject({ statusCode: 404, error: 'Not Found' });
  });

  it('GET /health/ready answers 503 and the admin API 503 once the database is gone; /health stays 200', async () => {
    const cookie = await t.signIn();
    await t.app.get(DataSource).destroy();
    await t.http.get('/health/ready').expect(503);
    await t.http.get('/health').expect(200, { status: 'ok' });
    const response = await t.http.get('/api/auth/session').set('Cookie', cookie).expect(503);
    expect(response.body).toEqual({
      statusCode: 503,
      error: 'Service Unavailable',
      message: 'The database is unavailable; try again shortly',
    });
  });
});
