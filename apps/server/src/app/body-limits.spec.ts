import { connect } from 'node:net';
import type { ApiError } from '@arrbiter/contracts';
import { fakeOpenApi } from '@arrbiter/tools/fake-servarr';
import request from 'supertest';
import { exchange } from '../testing/raw-socket';
import { AdminClient, startTestApp, TEST_ADMIN, TestApp } from '../testing/test-app';

const UPLOAD = '/api/admin/v1/openapi/radarr/v3';

/** A valid OpenAPI description of about `megabytes` MB (the padding is a description the catalog ignores). */
function openApiOf(megabytes: number): string {
  const document = fakeOpenApi('v3', 'Radarr') as Record<string, unknown>;
  const pad = { description: 'x'.repeat(megabytes * 1024 * 1024) };
  return JSON.stringify({ ...document, components: { schemas: { Pad: pad } } });
}

interface EarlyAnswer {
  status: number;
  body: ApiError;
  /** Body bytes the client had not sent yet when the whole response had arrived. */
  unsent: number;
}

/**
 * Sends the head and the first `first` bytes of `body`, then waits (up to `patienceMs`) for a response
 * before sending the rest: a server that reads the body before refusing can only answer after it.
 */
function sendInParts(port: number, head: string, body: Buffer, first: number, patienceMs = 5_000) {
  return new Promise<EarlyAnswer>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let unsent = body.length - first;
    let received = Buffer.alloc(0);
    const timer = setTimeout(() => {
      unsent = 0;
      socket.write(body.subarray(first));
    }, patienceMs);
    const finish = (error?: Error) => {
      clearTimeout(timer);
      socket.destroy();
      if (error) reject(error);
    };
    socket.on('data', (data: Buffer) => {
      received = Buffer.concat([received, data]);
      const end = received.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = received.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? NaN);
      if (received.length < end + 4 + length) return;
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
      const text = received.subarray(end + 4, end + 4 + length).toString('utf8');
      finish();
      resolve({ status, body: JSON.parse(text) as ApiError, unsent });
    });
    socket.on('error', (error) => finish(error));
    socket.on('close', () => finish(new Error(`closed without a response (got ${JSON.stringify(String(received))})`)));
    socket.write(head);
    socket.write(body.subarray(0, first));
  });
}

/** Finding: JSON bodies were parsed before the Origin and session checks (up to 10 MB, unauthenticated). */
describe('request bodies are read only once the caller may send them', () => {
  let t: TestApp;
  let admin: AdminClient;
  let cookie: string;
  let origin: string;
  let port: number;

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none' });
    origin = t.config.publicOrigin;
    admin = await t.admin();
    cookie = await t.signIn();
    port = Number(new URL(await t.listen()).port);
  });
  afterAll(() => t.close());

  describe('an upload the caller may not make is refused before its body is read', () => {
    const large = Buffer.from(openApiOf(6));

    it.each([
      ['without a session', 401, () => `Origin: ${origin}\r\n`],
      ['from a foreign Origin', 403, () => `Origin: https://evil.example\r\nCookie: ${cookie}\r\n`],
      ['without an Origin', 403, () => `Cookie: ${cookie}\r\n`],
    ])('%s: %i while most of a 6 MB body is still unsent', async (_name, status, headers) => {
      const head =
        `PUT ${UPLOAD} HTTP/1.1\r\nHost: arrbiter\r\nContent-Type: application/json\r\n` +
        `Content-Length: ${large.length}\r\n${headers()}\r\n`;
      const answer = await sendInParts(port, head, large, 64 * 1024);
      expect({ status: answer.status, statusCode: answer.body.statusCode }).toEqual({ status, statusCode: status });
      expect(answer.unsent).toBe(large.length - 64 * 1024);
    });

    it('without a session, a chunked body: 401 while the body is still coming', async () => {
      const head =
        `PUT ${UPLOAD} HTTP/1.1\r\nHost: arrbiter\r\nContent-Type: application/json\r\n` +
        `Transfer-Encoding: chunked\r\nOrigin: ${origin}\r\n\r\n`;
      const chunk = (bytes: Buffer) =>
        Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n')]);
      const body = Buffer.concat([
        chunk(large.subarray(0, 64 * 1024)),
        chunk(large.subarray(64 * 1024)),
        Buffer.from('0\r\n\r\n'),
      ]);
      const answer = await sendInParts(port, head, body, 64 * 1024 + 16);
      expect(answer.status).toBe(401);
      expect(answer.unsent).toBeGreaterThan(0);
    });

    it('leaves the connection usable for the next request after refusing one with a body', async () => {
      const body = JSON.stringify({ pad: 'y'.repeat(200 * 1024) });
      const refused = `POST /api/admin/v1/apps HTTP/1.1\r\nHost: h\r\nOrigin: ${origin}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      const next = 'GET /health HTTP/1.1\r\nHost: h\r\n\r\n';
      const result = await exchange(port, refused + next, ['POST', 'GET']);
      expect(result.responses.map((r) => r.status)).toEqual([401, 200]);
    });
  });

  describe('a body that is not JSON is not even looked at when the caller is refused', () => {
    const bad = '{"name": "unfinished';
    const put = (headers: Record<string, string>) =>
      request(t.app.getHttpServer()).put(UPLOAD).set(headers).set('Content-Type', 'application/json').send(bad);

    it('401 without a session, not 400', async () => {
      const response = await put({ Origin: origin }).expect(401);
      expect(response.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Sign in to continue' });
    });

    it('403 from a foreign Origin even with a session, not 400', async () => {
      await put({ Origin: 'https://evil.example', Cookie: cookie }).expect(403);
      await put({ Cookie: cookie }).expect(403);
    });

    it('403 on sign-in from a foreign Origin, not 400', async () => {
      await request(t.app.getHttpServer())
        .post('/api/auth/sign-in')
        .set('Origin', 'https://evil.example')
        .set('Content-Type', 'application/json')
        .send(bad)
        .expect(403);
    });

    it('400 in the usual error shape once the caller is let in', async () => {
      const response = await put({ Origin: origin, Cookie: cookie }).expect(400);
      expect(response.body).toEqual({ statusCode: 400, error: 'Bad Request', message: 'The body is not valid JSON' });
    });

    it('415 in the usual error shape for JSON in a character set other than UTF-8', async () => {
      const response = await request(t.app.getHttpServer())
        .put(UPLOAD)
        .set({ Origin: origin, Cookie: cookie, 'Content-Type': 'application/json; charset=iso-8859-1' })
        .send('{}')
        .expect(415);
      expect(response.body).toEqual({
        statusCode: 415,
        error: 'Unsupported Media Type',
        message: 'The body’s character set or encoding is not supported',
      });
    });
  });

  describe('limits', () => {
    it('refuses an admin body over 100 KB with 413 in the usual error shape', async () => {
      const response = await admin
        .post('/api/admin/v1/apps', {
          name: 'Big',
          slug: 'big',
          templateId: null,
          active: true,
          pad: 'z'.repeat(101 * 1024),
        })
        .expect(413);
      expect(response.body).toEqual({
        statusCode: 413,
        error: 'Payload Too Large',
        message: expect.stringMatching(/^The body is larger than /) as string,
      });
    });

    it('accepts an ordinary admin body under the limit', async () => {
      await admin
        .post('/api/admin/v1/apps', { name: 'Small', slug: 'small', templateId: null, active: true })
        .expect(201);
    });

    it('accepts an authenticated OpenAPI upload of a few MB', async () => {
      const response = await request(t.app.getHttpServer())
        .put(UPLOAD)
        .set('Cookie', cookie)
        .set('Origin', origin)
        .set('Content-Type', 'application/json')
        .send(openApiOf(4))
        .expect(200);
      expect(response.body).toMatchObject({ serviceType: 'radarr', apiVersion: 'v3' });
    });

    it('refuses an authenticated OpenAPI upload over 10 MB with 413', async () => {
      const response = await request(t.app.getHttpServer())
        .put(UPLOAD)
        .set('Cookie', cookie)
        .set('Origin', origin)
        .set('Content-Type', 'application/json')
        .send(openApiOf(11))
        .expect(413);
      expect(response.body).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
    });

    it('refuses a sign-in body over a few KB with 413, and signs in with an ordinary one', async () => {
      const signIn = (body: object) =>
        request(t.app.getHttpServer()).post('/api/auth/sign-in').set('Origin', origin).send(body);
      const response = await signIn({ ...TEST_ADMIN, pad: 'p'.repeat(8 * 1024) }).expect(413);
      expect(response.body).toMatchObject({ statusCode: 413, error: 'Payload Too Large' });
      await signIn(TEST_ADMIN).expect(200);
    });
  });
});
