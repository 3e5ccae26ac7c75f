import { ChildProcess, spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { listensOn, onFreePort } from './ports';

export interface OidcProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Everything the provider printed so far. */
  output(): string;
  stop(): Promise<void>;
}

const SCRIPT = resolve(__dirname, 'oidc-provider.mjs');

/**
 * Starts oidc-provider (the certified OpenID provider) on a free loopback port, with one confidential
 * client whose redirect URI is `redirectUri`. `accounts` gives logins claims beyond
 * `preferred_username` (their login), such as `groups`.
 */
export async function startOidcProvider(
  redirectUri: string,
  accounts: Record<string, Record<string, unknown>> = {},
): Promise<OidcProvider> {
  return onFreePort((port) => startOn(port, redirectUri, accounts));
}

async function startOn(
  port: number,
  redirectUri: string,
  accounts: Record<string, Record<string, unknown>>,
): Promise<OidcProvider> {
  const config = { port, clientId: 'arrbiter', clientSecret: 'e2e-client-secret-0123456789', redirectUri, accounts };
  const child: ChildProcess = spawn(process.execPath, [SCRIPT, JSON.stringify(config)], {
    env: { PATH: process.env['PATH'], HOME: process.env['HOME'], NODE_ENV: 'test' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const issuer = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`oidc-provider exited with ${child.exitCode}:\n${output}`);
    try {
      // Only its own answer counts: another process may have taken the port first (see startServer).
      if ((await fetch(`${issuer}/.well-known/openid-configuration`)).ok && listensOn(child.pid, port)) break;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`oidc-provider did not start:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    issuer,
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
