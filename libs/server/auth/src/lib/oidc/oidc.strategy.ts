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

  async validate(tokens: client.TokenEndpointResponse & client.TokenEndpointResponseHelpers): Promise<AdminUserEntity> {
    const idClaims = tokens.claims();
    if (!idClaims) throw new Error('The provider answered without an ID token');
    let claims: Record<string, unknown> = { ...idClaims };
    const lacksRole = this.oidc.roleMap.length > 0 && roleClaimValues(claims, this.oidc.roleClaim).length === 0;
    if ((lacksRole || ssoUsername(claims) === undefined) && tokens.access_token) {
      // Some providers (Authelia) put groups and names in the userinfo answer only.
      const info = await client.fetchUserInfo(this.configuration, tokens.access_token, idClaims.sub);
      claims = { ...info, ...claims };
    }
    return this.accounts.signInWithSso({
      subject: idClaims.sub,
      username: ssoUsername(claims),
      roleValues: roleClaimValues(claims, this.oidc.roleClaim),
    });
  }
}
