import { createTestDatabase, TestDatabase } from '@arrbiter/server/testing';
import { runCommand, ServerProcess, startServer } from '../support/server-process';

/** The generated first-admin password, read from the log line that prints it once. */
function generatedPassword(output: string): string | undefined {
  return /generated password: (\S+)/.exec(output)?.[1];
}

/** PUBLIC_URL is left at its default, http://localhost:PORT: admin writes come from that origin. */
async function signIn(server: ServerProcess, username: string, password: string): Promise<Response> {
  return fetch(`${server.url}/api/auth/sign-in`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: `http://localhost:${server.port}` },
    body: JSON.stringify({ username, password }),
  });
}

function sessionCookie(response: Response): string {
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('arrbiter_session='));
  if (!cookie) throw new Error('no session cookie');
  return cookie.split(';')[0];
}

describe('the production server over HTTP', () => {
  let database: TestDatabase;
  let server: ServerProcess | undefined;
  let env: NodeJS.ProcessEnv;
  const outputs: string[] = [];

  beforeAll(async () => {
    database = await createTestDatabase();
    env = { ...database.env };
  });
  afterAll(async () => {
    if (server) await server.stop();
    await database.drop();
  });

  const start = () => startServer(env);

  it('bootstraps an admin with a printed password, serves the dashboard and keeps sessions across a restart', async () => {
    server = await start();

    expect(await (await fetch(`${server.url}/health`)).json()).toEqual({ status: 'ok' });
    expect((await fetch(`${server.url}/health/ready`)).status).toBe(200);

    const page = await fetch(`${server.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(await page.text()).toContain('<arb-root');
    // Client-side routes fall back to the app; server paths do not.
    expect((await fetch(`${server.url}/apps/123`)).headers.get('content-type')).toMatch(/text\/html/);
    expect((await fetch(`${server.url}/api/unknown`)).status).toBe(404);

    const password = generatedPassword(server.output());
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const signedIn = await signIn(server, 'admin', password as string);
    expect(signedIn.status).toBe(200);
    const cookie = sessionCookie(signedIn);

    expect(await server.stop()).toBe(0);
    outputs.push(server.output());
    server = await start();
    const session = await fetch(`${server.url}/api/auth/session`, { headers: { cookie } });
    expect(session.status).toBe(200);
    expect(await session.json()).toEqual({
      username: 'admin',
      role: 'owner',
      publicUrlSet: true,
      passwordGenerated: true,
    });
    // No second admin, no second password.
    expect(generatedPassword(server.output())).toBeUndefined();
    expect(await server.stop()).toBe(0);
    outputs.push(server.output());
    server = undefined;

    // The generated password is printed exactly once; cookies never are.
    const all = outputs.join('');
    expect(all.split(password as string).length - 1).toBe(1);
    expect(all).not.toContain(cookie.split('=')[1]);
  });

  it('resets an admin password from the command line and signs its sessions out', async () => {
    const reset = runCommand(['reset-password', 'admin', '--password-stdin'], env, 'a brand new passphrase\n');
    expect(reset).toMatchObject({ status: 0 });
    expect(reset.output).toContain('Password of "admin" changed');
    server = await start();
    expect((await signIn(server, 'admin', 'a brand new passphrase')).status).toBe(200);
    await server.stop();
    server = undefined;

    const generated = runCommand(['reset-password', 'admin'], env);
    expect(generated.status).toBe(0);
    expect(generated.output).toMatch(/New password of "admin" \(shown once\): [A-Za-z0-9_-]{24}/);
    expect(runCommand(['reset-password', 'nobody'], env)).toMatchObject({ status: 1 });
  });

  it('migrates from the command line, idempotently', () => {
    const result = runCommand(['migrate'], env);
    expect(result).toMatchObject({ status: 0 });
    expect(result.output).toContain('Database is up to date.');
  });

  it('refuses to start on a bad configuration, naming the variable', () => {
    const result = runCommand([], { ...env, PORT: 'eighty', LOG_LEVEL: 'loud' });
    expect(result.status).toBe(1);
    expect(result.output).toContain('PORT must be an integer number (got "eighty")');
    expect(result.output).toContain('LOG_LEVEL must be one of the following values');
  });
});
