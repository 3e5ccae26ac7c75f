import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppConfig, loadConfig, TestClock } from '@arrbiter/server/config';
import request from 'supertest';
import { createApp } from '../app/create-app';
import { createTestDatabase, TestDatabase } from '@arrbiter/server/testing';

export const TEST_ADMIN = { username: 'admin', password: 'correct horse battery staple' };

export interface AdminClient {
  get(path: string): request.Test;
  post(path: string, body?: object): request.Test;
  put(path: string, body?: object): request.Test;
  patch(path: string, body?: object): request.Test;
  delete(path: string): request.Test;
}

/**
 * The configuration tests see. `startTestApp` sets `PUBLIC_URL` to `http://localhost:PORT` (the default
 * before it could be unset) unless the test gives its own, or `PUBLIC_URL: ''` to leave it unset (then
 * `publicUrl` and `publicOrigin` are undefined, whatever this type says).
 */
export type TestConfig = AppConfig & { readonly publicUrl: string; readonly publicOrigin: string };

export interface TestApp {
  app: NestExpressApplication;
  config: TestConfig;
  /** The server's clock: `advance()` moves time for deadlines. */
  clock: TestClock;
  database: TestDatabase;
  /** Every log line written so far, as raw JSON text. */
  logs: string[];
  /** Requests with the allowed Origin already set on writes. */
  http: ReturnType<typeof request>;
  /** Signs the test admin (or someone else) in and returns the `Cookie` header value. */
  signIn(credentials?: { username: string; password: string }): Promise<string>;
  /** Admin requests with the session cookie and the allowed Origin. */
  admin(): Promise<AdminClient>;
  /** Listens on a loopback port and returns the base URL (for real HTTP clients). */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/**
 * The whole server (production pipeline) on a fresh database, ready for supertest; or on `shared`,
 * a database other instances use too (which `close()` then leaves in place).
 */
export async function startTestApp(env: NodeJS.ProcessEnv = {}, shared?: TestDatabase): Promise<TestApp> {
  const database = shared ?? (await createTestDatabase());
  const dropDatabase = () => (shared ? Promise.resolve() : database.drop());
  const config = loadConfig({
    ADMIN_USERNAME: TEST_ADMIN.username,
    ADMIN_PASSWORD: TEST_ADMIN.password,
    LOG_LEVEL: 'info',
    // No automatic template sync from the public repository: tests sync what they choose.
    TEMPLATE_REPOSITORY: 'none',
    PUBLIC_URL: `http://localhost:${env['PORT'] ?? 8080}`,
    ...database.env,
    ...env,
  }) as TestConfig;
  const logs: string[] = [];
  const clock = new TestClock();
  let app: NestExpressApplication;
  try {
    app = await createApp(config, { logDestination: { write: (line: string) => logs.push(line) }, clock });
    await app.init();
  } catch (error) {
    await dropDatabase();
    throw error;
  }
  const http = request(app.getHttpServer());
  const signIn = async (credentials = TEST_ADMIN): Promise<string> => {
    const response = await request(app.getHttpServer())
      .post('/api/auth/sign-in')
      .set('Origin', config.publicOrigin)
      .send(credentials)
      .expect(200);
    const cookie = ([] as string[]).concat(response.headers['set-cookie'] ?? [])[0];
    return cookie.split(';')[0];
  };
  return {
    app,
    config,
    clock,
    database,
    logs,
    http,
    signIn,
    async admin() {
      const cookie = await signIn();
      const server = app.getHttpServer();
      const origin = config.publicOrigin;
      return {
        get: (path) => request(server).get(path).set('Cookie', cookie),
        post: (path, body = {}) => request(server).post(path).set('Cookie', cookie).set('Origin', origin).send(body),
        put: (path, body = {}) => request(server).put(path).set('Cookie', cookie).set('Origin', origin).send(body),
        patch: (path, body = {}) => request(server).patch(path).set('Cookie', cookie).set('Origin', origin).send(body),
        delete: (path) => request(server).delete(path).set('Cookie', cookie).set('Origin', origin),
      };
    },
    async listen() {
      await app.listen(0, '127.0.0.1');
      return app.getUrl().then((url) => url.replace('[::1]', '127.0.0.1'));
    },
    async close() {
      try {
        await app.close();
      } finally {
        await dropDatabase();
      }
    },
  };
}

/** The value, or a failed test naming what was missing (instead of a non-null assertion). */
export function found<T>(value: T | undefined | null, what: string): T {
  if (value === undefined || value === null) throw new Error(`${what} not found`);
  return value;
}
