// A real OpenID provider for the end-to-end tests: panva's oidc-provider (the certified
// implementation), run as a child process because it is ESM (jest runs the specs as CommonJS).
// Argument: JSON {port, clientId, clientSecret, redirectUri, accounts: {login: {claims…}}}.
// The development login form accepts any login (the account id) and password; consent is given.
import Provider from 'oidc-provider';

const { port, clientId, clientSecret, redirectUri, accounts } = JSON.parse(process.argv[2]);
const issuer = `http://127.0.0.1:${port}`;

const provider = new Provider(issuer, {
  clients: [
    {
      client_id: clientId,
      client_secret: clientSecret,
      redirect_uris: [redirectUri],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    },
  ],
  pkce: { required: () => true },
  scopes: ['openid', 'profile', 'email', 'groups'],
  claims: {
    openid: ['sub'],
    profile: ['preferred_username', 'name'],
    email: ['email'],
    groups: ['groups'],
  },
  // Every login is an account; the test's map gives it claims (groups, another preferred_username…).
  findAccount: (_ctx, id) => ({
    accountId: id,
    claims: () => ({ sub: id, preferred_username: id, ...(accounts[id] ?? {}) }),
  }),
  // Consent is given at once: the tests are about the relying party.
  loadExistingGrant: async (ctx) => {
    const grant = new ctx.oidc.provider.Grant({
      clientId: ctx.oidc.client.clientId,
      accountId: ctx.oidc.session.accountId,
    });
    grant.addOIDCScope('openid profile email groups');
    await grant.save();
    return grant;
  },
  features: { devInteractions: { enabled: true } },
  cookies: { keys: ['arrbiter-e2e-cookie-key'] },
  renderError: (ctx, out) => {
    ctx.type = 'json';
    ctx.body = out;
  },
});
// The development defaults (ephemeral signing keys, the dev login form) say so on every start.
provider.on('server_error', (_ctx, error) => console.error('oidc-provider server_error', error));
const server = provider.listen(port, '127.0.0.1', () => console.log(`oidc-provider listening at ${issuer}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
