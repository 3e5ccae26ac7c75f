import type { NestExpressApplication } from '@nestjs/platform-express';
import { AppConfig, loadConfig } from '@arrbiter/server/config';
import request from 'supertest';
import { createApp } from '../app/create-app';
import { createTestDatabase, TestDatabase } from '@arrbiter/server/testing';

export const TEST_ADMIN = { username: 'admin', password: 'correct horse battery staple' };

export interface TestApp {
  app: NestExpressApplication;
  config: AppConfig;
  database: TestDatabase;
  /** Every log line written so far, as raw JSON text. */
  logs: string[];
  /** Requests with the allowed Origin already set on writes. */
  http: ReturnType<typeof request>;
  /** Signs the test admin in and returns the `Cookie` header value. */
  signIn(): Promise<string>;
  close(): Promise<void>;
}

/** The whole server (production pipeline) on a fresh database, ready for supertest. */
export async function startTestApp(env: NodeJS.ProcessEnv = {}): Promise<TestApp> {
  const database = await createTestDatabase();
  const config = loadConfig({
    ADMIN_USERNAME: TEST_ADMIN.username,
    ADMIN_PASSWORD: TEST_ADMIN.password,
    LOG_LEVEL: 'info',
    ...database.env,
    ...env,
  });
  const logs: string[] = [];
  let app: NestExpressApplication;
  try {
    app = await createApp(config, { logDestination: { write: (line: string) => logs.push(line) } });
    await app.init();
  } catch (error) {
    await database.drop();
    throw error;
  }
  const http = request(app.getHttpServer());
  return {
    app,
    config,
    database,
    logs,
    http,
    async signIn() {
      const response = await request(app.getHttpServer())
        .post('/api/auth/sign-in')
        .set('Origin', config.publicOrigin)
        .send(TEST_ADMIN)
        .expect(200);
      const cookie = ([] as string[]).concat(response.headers['set-cookie'] ?? [])[0];
      return cookie.split(';')[0];
    },
    async close() {
      try {
        await app.close();
      } finally {
        await database.drop();
      }
    },
  };
}
