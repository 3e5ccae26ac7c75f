// Drives a running Arrbiter over HTTP for the container and chart tests in CI:
//   node tools/container/smoke.mjs setup <url> <username> <password> <servarrUrl> <servarrKey>
//     signs in, registers the Servarr as a service, creates app `ci` with a proxy allowed
//     GET /api/v3/system/status, calls it through the proxy, and prints the proxy key;
//   node tools/container/smoke.mjs check <url> <username> <password> <proxyKey>
//     signs in, finds that service, and calls the proxy again with the stored key;
//   node tools/container/smoke.mjs signin <url> <username> <password>
//     signs in and reads the session back (a sign-in check at that address, or at a sub-path);
//   node tools/container/smoke.mjs ready <url> [seconds]
//     waits until /health/ready answers 200 and prints how long that took in ms.
// Writes come with the Origin of <url>, which must be the server's PUBLIC_URL.
const [command, url, ...args] = process.argv.slice(2);
const origin = url && new URL(url).origin;
const ROUTE = '/api/v3/system/status';

function fail(message) {
  console.error(`smoke: ${message}`);
  process.exit(1);
}

async function call(method, path, { cookie, body, headers = {} } = {}) {
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      origin,
      ...(cookie ? { cookie } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, json, text };
}

async function expectStatus(method, path, expected, options) {
  const response = await call(method, path, options);
  if (response.status !== expected)
    fail(`${method} ${path} answered ${response.status}: ${response.text.slice(0, 300)}`);
  return response.json;
}

async function signIn(username, password) {
  const response = await call('POST', '/api/auth/sign-in', { body: { username, password } });
  if (response.status !== 200) fail(`sign-in answered ${response.status}: ${response.text}`);
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('arrbiter_session='));
  if (!cookie) fail('sign-in set no session cookie');
  return cookie.split(';')[0];
}

async function proxiedCall(key) {
  const status = await expectStatus('GET', `/proxy/ci${ROUTE}`, 200, { headers: { 'x-api-key': key } });
  if (!status?.appName) fail(`the proxied ${ROUTE} answered without appName`);
  const refused = await call('GET', '/proxy/ci/api/v3/movie', { headers: { 'x-api-key': key } });
  if (refused.status !== 403) fail(`a call outside the allowlist answered ${refused.status}, not 403`);
  return status.appName;
}

async function setup([username, password, servarrUrl, servarrKey]) {
  const cookie = await signIn(username, password);
  const service = await expectStatus('POST', '/api/admin/v1/services', 201, {
    cookie,
    body: { baseUrl: servarrUrl, apiKey: servarrKey },
  });
  const app = await expectStatus('POST', '/api/admin/v1/apps', 201, {
    cookie,
    body: { name: 'CI', slug: 'ci', templateId: null, active: true },
  });
  const proxy = await expectStatus('POST', `/api/admin/v1/apps/${app.id}/proxies`, 201, {
    cookie,
    body: { serviceId: service.id },
  });
  await expectStatus('PUT', `/api/admin/v1/proxies/${proxy.id}/config`, 200, {
    cookie,
    body: { overrides: { [ROUTE]: ['get'] }, active: true },
  });
  const appName = await proxiedCall(proxy.key);
  console.error(`smoke: service ${service.type} "${service.name}", proxied GET ${ROUTE} → ${appName}`);
  console.log(proxy.key);
}

async function check([username, password, key]) {
  const cookie = await signIn(username, password);
  const services = await expectStatus('GET', '/api/admin/v1/services', 200, { cookie });
  const items = Array.isArray(services) ? services : services.items;
  if (!items?.length) fail('the service created before the restart is gone');
  const appName = await proxiedCall(key);
  console.error(`smoke: after the restart: ${items.length} service(s), proxied GET ${ROUTE} → ${appName}`);
}

async function signin([username, password]) {
  const cookie = await signIn(username, password);
  const session = await expectStatus('GET', '/api/auth/session', 200, { cookie });
  if (session?.username !== username.toLowerCase()) fail(`the session is ${JSON.stringify(session)}`);
  console.error(`smoke: signed in at ${url} as ${session.username} (${session.role})`);
}

async function ready([seconds = '60']) {
  const started = Date.now();
  const deadline = started + Number(seconds) * 1000;
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${url}/health/ready`);
      if (response.status === 200) {
        console.log(Date.now() - started);
        return;
      }
    } catch {
      // not listening yet
    }
    await new Promise((done) => setTimeout(done, 100));
  }
  fail(`${url}/health/ready did not answer 200 within ${seconds} s`);
}

const commands = { setup, check, signin, ready };
if (!commands[command] || !url) fail('usage: smoke.mjs setup|check|signin|ready <url> ...');
await commands[command](args);
