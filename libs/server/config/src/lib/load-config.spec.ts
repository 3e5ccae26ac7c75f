import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config-error';
import { loadConfig } from './load-config';

describe(loadConfig.name, () => {
  let dir: string;
  const hexKey = 'ab'.repeat(32);

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'arrbiter-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  function problemsOf(env: NodeJS.ProcessEnv): readonly string[] {
    try {
      loadConfig({ DATA_DIR: dir, ...env });
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
    throw new Error('expected a ConfigError');
  }

  it('applies the documented defaults on the embedded database', () => {
    const config = loadConfig({ DATA_DIR: dir });
    expect(config).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      publicUrl: undefined,
      publicOrigin: undefined,
      secureCookies: false,
      allowedOrigins: [],
      databaseUrl: undefined,
      dataDir: dir,
      proxyName: 'arrbiter',
      logLevel: 'info',
      secretKeySource: 'generated',
      databaseListenUrl: undefined,
      metricsPort: undefined,
      metricsHost: '0.0.0.0',
      serviceCheckIntervalSeconds: 300,
    });
    expect(config.secretKey).toHaveLength(32);
  });

  it('generates the secret key once into DATA_DIR with mode 0600 and reuses it', () => {
    const first = loadConfig({ DATA_DIR: dir });
    const file = join(dir, 'secret.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(first.secretKey.toString('hex'));
    const second = loadConfig({ DATA_DIR: dir });
    expect(second.secretKeySource).toBe('data-dir');
    expect(second.secretKey.equals(first.secretKey)).toBe(true);
  });

  it('leaves PUBLIC_URL unset by default (each request then stands for it) and marks https for secure cookies', () => {
    expect(loadConfig({ DATA_DIR: dir, PORT: '9000' }).publicUrl).toBeUndefined();
    const https = loadConfig({ DATA_DIR: dir, PUBLIC_URL: 'https://arr.example.com/' });
    expect(https.publicUrl).toBe('https://arr.example.com');
    expect(https.secureCookies).toBe(true);
  });

  it('takes a PUBLIC_URL with a path (served under a sub-path), without its trailing slash', () => {
    const config = loadConfig({ DATA_DIR: dir, PUBLIC_URL: 'https://home.example/arrbiter/' });
    expect(config.publicUrl).toBe('https://home.example/arrbiter');
    expect(config.publicOrigin).toBe('https://home.example');
    expect(config.allowedOrigins).toEqual(['https://home.example']);
  });

  it('adds ALLOWED_ORIGINS to the public origin', () => {
    const config = loadConfig({ DATA_DIR: dir, ALLOWED_ORIGINS: 'https://a.example, http://b.example:81/' });
    expect(config.allowedOrigins).toEqual(['https://a.example', 'http://b.example:81']);
    const set = loadConfig({ DATA_DIR: dir, PUBLIC_URL: 'https://arr.example', ALLOWED_ORIGINS: 'https://a.example' });
    expect(set.allowedOrigins).toEqual(['https://arr.example', 'https://a.example']);
  });

  it.each([
    [{ PORT: 'abc' }, /^PORT must be an integer number \(got "abc"\)$/],
    [{ PORT: '70000' }, /^PORT must not be greater than 65535/],
    [{ PUBLIC_URL: 'ftp://x' }, /^PUBLIC_URL must be an http\(s\) URL/],
    [{ PUBLIC_URL: 'https://x.example/arr?x=1' }, /^PUBLIC_URL must be an http\(s\) URL/],
    [{ PUBLIC_URL: 'https://x.example/a/../b' }, /^PUBLIC_URL's path must be plain segments/],
    [{ PUBLIC_URL: 'https://x.example/api' }, /^PUBLIC_URL's path cannot begin with \/api, \/proxy or \/health/],
    [{ PUBLIC_URL: 'https://x.example/proxy/arr' }, /^PUBLIC_URL's path cannot begin with/],
    [{ DATABASE_URL: 'mysql://x' }, /^DATABASE_URL must be a postgres/],
    [{ OIDC_ISSUER: 'https://auth.example', OIDC_CLIENT_ID: 'arrbiter' }, /^OIDC_ISSUER is set without PUBLIC_URL/],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL must be one of the following values/],
    [{ ADMIN_USERNAME: 'admin' }, /^ADMIN_USERNAME and ADMIN_PASSWORD must be set together/],
    [{ ADMIN_USERNAME: 'admin', ADMIN_PASSWORD: 'short' }, /^ADMIN_PASSWORD must be longer than or equal to 12/],
    [{ ALLOWED_ORIGINS: 'not a url' }, /^ALLOWED_ORIGINS: "not a url" is not an http\(s\) origin/],
    [{ OPENAPI_SOURCES: 'nope' }, /^OPENAPI_SOURCES: "nope" is not an http\(s\) URL/],
    [{ SECRET_KEY: 'too-short' }, /^SECRET_KEY must be a 32-byte key/],
    [{ SECRET_KEY: hexKey, SECRET_KEY_FILE: '/x' }, /^SECRET_KEY and SECRET_KEY_FILE are both set/],
    [{ SECRET_KEY_FILE: '/nonexistent/key' }, /^SECRET_KEY_FILE cannot be read \(ENOENT\)/],
    [
      { DATABASE_URL: 'postgres://localhost/db' },
      /^SECRET_KEY \(or SECRET_KEY_FILE\) is required when DATABASE_URL is set/,
    ],
    [{ DATABASE_LISTEN_URL: 'postgres://db/x' }, /^DATABASE_LISTEN_URL is set without DATABASE_URL/],
    [
      { DATABASE_URL: 'postgres://pooler/x', SECRET_KEY: hexKey, DATABASE_LISTEN_URL: 'http://db' },
      /^DATABASE_LISTEN_URL must be a postgres/,
    ],
    [{ METRICS_PORT: '0' }, /^METRICS_PORT must not be less than 1/],
    [{ METRICS_PORT: '8080' }, /^METRICS_PORT must differ from PORT \(8080\)/],
    [{ USAGE_RETENTION_DAYS: '0' }, /^USAGE_RETENTION_DAYS must not be less than 1 \(got "0"\)$/],
    [{ USAGE_RETENTION_DAYS: '3651' }, /^USAGE_RETENTION_DAYS must not be greater than 3650/],
    [{ USAGE_RETENTION_DAYS: '90d' }, /^USAGE_RETENTION_DAYS must be an integer number/],
    [{ WARNING_RETENTION_DAYS: '0' }, /^WARNING_RETENTION_DAYS must not be less than 1 \(got "0"\)$/],
    [{ WARNING_RETENTION_DAYS: '3651' }, /^WARNING_RETENTION_DAYS must not be greater than 3650/],
    [{ WARNING_RETENTION_DAYS: 'ever' }, /^WARNING_RETENTION_DAYS must be an integer number/],
    [{ USAGE_COUNTING: 'off' }, /^USAGE_COUNTING must be one of the following values: true, false \(got "off"\)$/],
    [{ ACCESS_LOG_WRITER: 'fast' }, /^ACCESS_LOG_WRITER must be one of the following values: direct, pino/],
    [{ SERVICE_CHECK_INTERVAL_SECONDS: '-1' }, /^SERVICE_CHECK_INTERVAL_SECONDS must not be less than 0/],
    [{ SERVICE_CHECK_INTERVAL_SECONDS: '5m' }, /^SERVICE_CHECK_INTERVAL_SECONDS must be an integer number/],
    [{ SERVICE_CHECK_INTERVAL_SECONDS: '86401' }, /^SERVICE_CHECK_INTERVAL_SECONDS must not be greater than 86400/],
  ])('rejects %j naming the variable and the reason', (env, expected) => {
    expect(problemsOf(env)).toEqual([expect.stringMatching(expected)]);
  });

  it.each([
    [{ ADMIN_USERNAME: 'admin', ADMIN_PASSWORD: 'hunter2-pw' }, 'hunter2-pw', /\(got 10 characters\)$/],
    [{ SECRET_KEY: 'not-a-key-but-secret' }, 'not-a-key-but-secret', /^SECRET_KEY must be a 32-byte key/],
    [{ DATABASE_URL: 'mysql://arr:s3cr3t-pw@db/arr' }, 's3cr3t-pw', /\(got "mysql:\/\/arr:\*\*\*@db\/arr"\)$/],
    [
      { DATABASE_URL: 'postgres://p/x', SECRET_KEY: hexKey, DATABASE_LISTEN_URL: 'http://u:listen-pw@db' },
      'listen-pw',
      /\(got "http:\/\/u:\*\*\*@db"\)$/,
    ],
  ])('never repeats a secret in the message: %j', (env, secret, shown) => {
    const problems = problemsOf(env);
    expect(problems.join('\n')).not.toContain(secret);
    expect(problems).toEqual([expect.stringMatching(shown)]);
  });

  it('takes DATABASE_LISTEN_URL beside DATABASE_URL, and METRICS_PORT and METRICS_HOST', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://pooler:6432/arrbiter',
      DATABASE_LISTEN_URL: 'postgres://db:5432/arrbiter',
      SECRET_KEY: hexKey,
      METRICS_PORT: '9464',
      METRICS_HOST: '127.0.0.1',
    });
    expect(config).toMatchObject({
      databaseListenUrl: 'postgres://db:5432/arrbiter',
      metricsPort: 9464,
      metricsHost: '127.0.0.1',
    });
  });

  it('keeps usage counters 90 days and counts by default; USAGE_RETENTION_DAYS and USAGE_COUNTING=false change that', () => {
    expect(loadConfig({ DATA_DIR: dir })).toMatchObject({ usageRetentionDays: 90, usageCounting: true });
    expect(loadConfig({ DATA_DIR: dir, USAGE_RETENTION_DAYS: '7', USAGE_COUNTING: 'false' })).toMatchObject({
      usageRetentionDays: 7,
      usageCounting: false,
    });
    expect(loadConfig({ DATA_DIR: dir, USAGE_COUNTING: 'true' }).usageCounting).toBe(true);
  });

  it('keeps access warnings 90 days after they were last seen by default; WARNING_RETENTION_DAYS changes that', () => {
    expect(loadConfig({ DATA_DIR: dir }).warningRetentionDays).toBe(90);
    expect(loadConfig({ DATA_DIR: dir, WARNING_RETENTION_DAYS: '14' }).warningRetentionDays).toBe(14);
  });

  it('writes access lines directly by default; ACCESS_LOG_WRITER=pino writes them through pino', () => {
    expect(loadConfig({ DATA_DIR: dir }).accessLogWriter).toBe('direct');
    expect(loadConfig({ DATA_DIR: dir, ACCESS_LOG_WRITER: 'pino' }).accessLogWriter).toBe('pino');
  });

  it('toggles no feature by default; BENCH_TOGGLE names one that is on', () => {
    expect(loadConfig({ DATA_DIR: dir }).benchToggle).toBeUndefined();
    expect(loadConfig({ DATA_DIR: dir, BENCH_TOGGLE: 'usage-counting' }).benchToggle).toBe('usage-counting');
    expect(loadConfig({ DATA_DIR: dir, BENCH_TOGGLE: 'metrics', METRICS_PORT: '9464' }).benchToggle).toBe('metrics');
    expect(() => loadConfig({ DATA_DIR: dir, BENCH_TOGGLE: 'metrics' })).toThrow(
      /BENCH_TOGGLE=metrics needs METRICS_PORT/,
    );
    expect(() => loadConfig({ DATA_DIR: dir, BENCH_TOGGLE: 'usage-counting', USAGE_COUNTING: 'false' })).toThrow(
      /BENCH_TOGGLE=usage-counting needs USAGE_COUNTING on/,
    );
    expect(() => loadConfig({ DATA_DIR: dir, BENCH_TOGGLE: 'scrubbing' })).toThrow(
      /BENCH_TOGGLE must be one of the following values: usage-counting, metrics/,
    );
  });

  it("runs the proxy route's checks directly by default; PROXY_CHECKS=nest runs them through Nest", () => {
    expect(loadConfig({ DATA_DIR: dir }).proxyChecks).toBe('direct');
    expect(loadConfig({ DATA_DIR: dir, PROXY_CHECKS: 'nest' }).proxyChecks).toBe('nest');
    expect(() => loadConfig({ DATA_DIR: dir, PROXY_CHECKS: 'fast' })).toThrow(
      /PROXY_CHECKS must be one of the following values: direct, nest/,
    );
  });

  it('reports every bad variable at once and writes no secret key', () => {
    expect(problemsOf({ PORT: 'x', LOG_LEVEL: 'y' })).toHaveLength(2);
    expect(() => statSync(join(dir, 'secret.key'))).toThrow();
  });

  it('reads SECRET_KEY as hex or base64 and SECRET_KEY_FILE from disk', () => {
    const db = 'postgres://u@127.0.0.1/db';
    expect(loadConfig({ DATABASE_URL: db, SECRET_KEY: hexKey }).secretKey.toString('hex')).toBe(hexKey);
    const b64 = Buffer.alloc(32, 7).toString('base64');
    expect(loadConfig({ DATABASE_URL: db, SECRET_KEY: b64 }).secretKey).toEqual(Buffer.alloc(32, 7));
    const file = join(dir, 'key');
    writeFileSync(file, `${hexKey}\n`);
    const config = loadConfig({ DATABASE_URL: db, SECRET_KEY_FILE: file });
    expect(config.secretKeySource).toBe('SECRET_KEY_FILE');
    expect(config.databaseUrl).toBe(db);
  });

  it('takes SERVICE_CHECK_INTERVAL_SECONDS, 0 turning the check off', () => {
    expect(loadConfig({ DATA_DIR: dir, SERVICE_CHECK_INTERVAL_SECONDS: '60' }).serviceCheckIntervalSeconds).toBe(60);
    expect(loadConfig({ DATA_DIR: dir, SERVICE_CHECK_INTERVAL_SECONDS: '0' }).serviceCheckIntervalSeconds).toBe(0);
  });

  it('disables OpenAPI sources with "none"', () => {
    expect(loadConfig({ DATA_DIR: dir, OPENAPI_SOURCES: 'none' }).openapiSources).toEqual([]);
  });

  it('takes TEMPLATE_ROOT as an absolute directory, unset by default', () => {
    expect(loadConfig({ DATA_DIR: dir }).templateRoot).toBeUndefined();
    expect(loadConfig({ DATA_DIR: dir, TEMPLATE_ROOT: `${dir}/templates/` }).templateRoot).toBe(join(dir, 'templates'));
    expect(problemsOf({ TEMPLATE_ROOT: 'templates' })).toEqual([
      'TEMPLATE_ROOT: "templates" is not an absolute directory',
    ]);
  });

  describe('TEMPLATE_REPOSITORY credentials', () => {
    const token = 'ghp_canaryToken1234567890';

    it('refuses credentials in the URL at start-up, naming the variable and never echoing them', () => {
      for (const url of [
        `https://user:${token}@git.example.com/templates.git`,
        `https://${token}@git.example.com/templates.git`,
        `https://user:${encodeURIComponent(token)}@git.example.com:8443/t.git`,
      ]) {
        const problems = problemsOf({ TEMPLATE_REPOSITORY: url });
        expect(problems).toEqual([expect.stringMatching(/^TEMPLATE_REPOSITORY .*TEMPLATE_REPOSITORY_TOKEN/)]);
        expect(JSON.stringify(problems)).not.toContain(token);
        expect(JSON.stringify(problems)).not.toContain('git.example.com');
      }
    });

    it('takes the token from TEMPLATE_REPOSITORY_TOKEN or TEMPLATE_REPOSITORY_TOKEN_FILE, for that origin only', () => {
      const url = 'https://git.example.com/org/templates.git';
      expect(loadConfig({ DATA_DIR: dir, TEMPLATE_REPOSITORY: url }).templateRepositoryAuth).toBeUndefined();
      const config = loadConfig({ DATA_DIR: dir, TEMPLATE_REPOSITORY: url, TEMPLATE_REPOSITORY_TOKEN: token });
      expect(config.templateRepository.url).toBe(url);
      expect(config.templateRepositoryAuth).toEqual({
        origin: 'https://git.example.com',
        username: 'x-access-token',
        token,
      });
      const file = join(dir, 'token');
      writeFileSync(file, `${token}\n`);
      expect(
        loadConfig({
          DATA_DIR: dir,
          TEMPLATE_REPOSITORY: url,
          TEMPLATE_REPOSITORY_TOKEN_FILE: file,
          TEMPLATE_REPOSITORY_USERNAME: 'oauth2',
        }).templateRepositoryAuth,
      ).toEqual({ origin: 'https://git.example.com', username: 'oauth2', token });
    });

    it('refuses a token it cannot use, never echoing it', () => {
      const url = 'https://git.example.com/org/templates.git';
      const file = join(dir, 'token');
      writeFileSync(file, token);
      const cases: [NodeJS.ProcessEnv, RegExp][] = [
        [{ TEMPLATE_REPOSITORY_TOKEN: token }, /^TEMPLATE_REPOSITORY_TOKEN .*TEMPLATE_REPOSITORY/],
        [{ TEMPLATE_REPOSITORY: '/srv/templates', TEMPLATE_REPOSITORY_TOKEN: token }, /^TEMPLATE_REPOSITORY_TOKEN /],
        [
          { TEMPLATE_REPOSITORY: url, TEMPLATE_REPOSITORY_TOKEN: token, TEMPLATE_REPOSITORY_TOKEN_FILE: file },
          /^TEMPLATE_REPOSITORY_TOKEN and TEMPLATE_REPOSITORY_TOKEN_FILE are both set/,
        ],
        [
          { TEMPLATE_REPOSITORY: url, TEMPLATE_REPOSITORY_TOKEN_FILE: join(dir, 'nope') },
          /^TEMPLATE_REPOSITORY_TOKEN_FILE cannot be read/,
        ],
        [{ TEMPLATE_REPOSITORY: url, TEMPLATE_REPOSITORY_TOKEN: `${token} x` }, /^TEMPLATE_REPOSITORY_TOKEN /],
        [{ TEMPLATE_REPOSITORY: url, TEMPLATE_REPOSITORY_USERNAME: 'oauth2' }, /^TEMPLATE_REPOSITORY_USERNAME /],
      ];
      for (const [env, message] of cases) {
        const problems = problemsOf(env);
        expect(problems).toEqual([expect.stringMatching(message)]);
        expect(JSON.stringify(problems)).not.toContain(token);
      }
    });
  });

  it('refuses a TRUST_PROXY entry that is not an address, CIDR or range name', () => {
    expect(loadConfig({ DATA_DIR: dir, TRUST_PROXY: 'loopback, 10.0.0.0/8' }).trustProxy).toEqual([
      'loopback',
      '10.0.0.0/8',
    ]);
    expect(problemsOf({ TRUST_PROXY: 'loopback,proxy.example' })).toEqual([expect.stringMatching(/^TRUST_PROXY: /)]);
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ DATA_DIR: dir, PORT: '', LOG_LEVEL: ' ' }).port).toBe(8080);
  });
});
