import { PassportStrategy } from '@nestjs/passport';
import type { OidcConfig } from '@arrbiter/server/config';
import type { Request } from 'express';
import * as client from 'openid-client';
import { AuthenticateOptions, Strategy } from 'openid-client/passport';
import type { AccountsService } from '../accounts.service';
import type { AdminUserEntity } from '../entities/admin-user.entity';
import { roleClaimValues, ssoUsername } from './role-claim';

export const OIDC_STRATEGY = 'oidc';
export const OIDC_CALLBACK_PATH = '/api/auth/oidc/callback';

/**
 * The key of the state cookie (beside the strategy's own) that marks a flow as linking the account of
 * the password session that began it, rather than signing in: sealed with the PKCE verifier, state
 * and nonce, it cannot be forged or moved to another flow.
 */
export const OIDC_LINK_KEY = 'link';

/** Whose account a linking flow binds the identity to, and the session that asked. */
export interface OidcLink {
  accountId: string;
  sessionId: string;
}

/** What a finished flow did: signed `user` in, or linked their account (`linked`). */
export interface SsoResult {
  user: AdminUserEntity;
  linked: boolean;
}

export type StateRequest = Request & { session?: Record<string, unknown> };

/** The link a flow carries in its state cookie, if it is a linking flow. */
export function linkOf(request: StateRequest): OidcLink | undefined {
  const link = request.session?.[OIDC_LINK_KEY] as Partial<OidcLink> | undefined;
  return typeof link?.accountId === 'string' && typeof link.sessionId === 'string'
    ? { accountId: link.accountId, sessionId: link.sessionId }
    : undefined;
}

/** The options each of the two routes passes: which half of the flow it is. */
export interface OidcPhaseOptions extends AuthenticateOptions {
  phase: 'login' | 'callback';
}

/**
 * Single sign-on with openid-client's Passport strategy: the authorization code flow with PKCE
 * (S256), and a state and a nonce on every request, all three checked at the callback. The verified
 * ID token (and, for claims it lacks, the userinfo endpoint) names the account (`AccountsService`).
 */
export class OidcStrategy extends PassportStrategy(Strategy, OIDC_STRATEGY) {
  constructor(
    private readonly configuration: client.Configuration,
    private readonly oidc: OidcConfig,
    private readonly accounts: AccountsService,
    publicUrl: string,
  ) {
    super({
      config: configuration,
      name: OIDC_STRATEGY,
      sessionKey: OIDC_STRATEGY,
      callbackURL: `${publicUrl}${OIDC_CALLBACK_PATH}`,
      scope: oidc.scopes.join(' '),
      passReqToCallback: true,
    });
  }

  /**
   * Starts a flow that links `link`'s account instead of signing in: the state cookie (on
   * `request.session`) carries the link, and the answer is the provider's URL for the browser to open.
   */
  beginLink(request: StateRequest, link: OidcLink): Promise<string> {
    const session = request.session;
    if (!session) return Promise.reject(new Error('No state cookie session'));
    session[OIDC_LINK_KEY] = link;
    return new Promise<string>((resolve, reject) => {
      // Passport's way of running a strategy once: a per-request object with its actions.
      const run = Object.create(this) as this & {
        redirect(url: string): void;
        error(error: unknown): void;
        fail(): void;
        success(): void;
        pass(): void;
      };
      run.redirect = resolve;
      run.error = reject;
      run.fail = () => reject(new Error('The authorization request could not be made'));
      run.success = () => reject(new Error('The authorization request could not be made'));
      run.pass = () => reject(new Error('The authorization request could not be made'));
      const options: OidcPhaseOptions = { phase: 'login' };
      run.authenticate(request, options);
    });
  }

  /** The strategy adds a state only for providers without PKCE: add one, and a nonce, always. */
  override authorizationRequestParams<T extends AuthenticateOptions>(
    request: Request,
    options: T,
  ): URLSearchParams | Record<string, string> | undefined {
    const params = new URLSearchParams(super.authorizationRequestParams(request, options));
    params.set('state', client.randomState());
    params.set('nonce', client.randomNonce());
    return params;
  }

  /** Only the login route starts a sign-in; the callback only finishes one. */
  override shouldInitiateAuthRequest<T extends AuthenticateOptions>(_request: Request, _url: URL, options: T): boolean {
    return (options as unknown as OidcPhaseOptions).phase === 'login';
  }

  async validate(
    request: StateRequest,
    tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers,
  ): Promise<SsoResult> {
    const idClaims = tokens.claims();
    if (!idClaims) throw new Error('The provider answered without an ID token');
    const link = linkOf(request);
    if (link) {
      const identity = { issuer: idClaims.iss, subject: idClaims.sub, username: undefined, roleValues: [] };
      return { user: await this.accounts.linkSso(link.accountId, link.sessionId, identity), linked: true };
    }
    let claims: Record<string, unknown> = { ...idClaims };
    const lacksRole = this.oidc.roleMap.length > 0 && roleClaimValues(claims, this.oidc.roleClaim).length === 0;
    if ((lacksRole || ssoUsername(claims) === undefined) && tokens.access_token) {
      // Some providers (Authelia) put groups and names in the userinfo answer only.
      const info = await client.fetchUserInfo(this.configuration, tokens.access_token, idClaims.sub);
      claims = { ...info, ...claims };
    }
    const user = await this.accounts.signInWithSso({
      issuer: idClaims.iss,
      subject: idClaims.sub,
      username: ssoUsername(claims),
      roleValues: roleClaimValues(claims, this.oidc.roleClaim),
    });
    return { user, linked: false };
  }
}
