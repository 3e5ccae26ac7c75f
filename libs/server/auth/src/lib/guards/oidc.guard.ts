import { ExecutionContext, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { AppConfig } from '@arrbiter/server/config';
import { SecretBox } from '@arrbiter/server/crypto';
import type { Request, Response } from 'express';
import { SsoRefusal, SsoRefusalReason } from '../accounts.service';
import type { AdminUserEntity } from '../entities/admin-user.entity';
import { OidcClient } from '../oidc/oidc-client';
import { cookieSession } from '../oidc/oidc-state';
import { OIDC_LINK_KEY, OIDC_STRATEGY, OidcPhaseOptions, SsoResult } from '../oidc/oidc.strategy';

/** How a single sign-on step ended, for the route to answer (a redirect either way). */
export type SsoOutcome =
  | { ok: true; user: AdminUserEntity; linked: boolean }
  | { ok: false; reason: SsoRefusalReason | 'failed' | 'unavailable' };

export interface SsoRequest extends Request {
  user?: SsoOutcome;
}

/**
 * Runs one half of the OpenID flow (`phase`) through `@nestjs/passport`. The login half answers with
 * the redirect to the provider itself. The callback half leaves its outcome on `request.user`, never
 * an exception: a failed sign-in sends the browser back to the sign-in page with a reason.
 */
abstract class OidcGuard extends AuthGuard(OIDC_STRATEGY) {
  private readonly logger = new Logger('SingleSignOn');

  constructor(
    private readonly oidc: OidcClient,
    private readonly box: SecretBox,
    private readonly config: AppConfig,
    private readonly phase: OidcPhaseOptions['phase'],
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.oidc.configured) throw new NotFoundException('Single sign-on is not configured');
    const request = context.switchToHttp().getRequest<SsoRequest & { session?: unknown }>();
    const response = context.switchToHttp().getResponse<Response>();
    try {
      await this.oidc.ready();
    } catch {
      request.user = { ok: false, reason: 'unavailable' };
      return true;
    }
    const session = cookieSession(request, response, this.box, this.config);
    // A sign-in started after an abandoned link is a sign-in: only `POST oidc/link` marks a flow.
    if (this.phase === 'login' && OIDC_LINK_KEY in session) delete session[OIDC_LINK_KEY];
    request.session = session;
    return (await super.canActivate(context)) as boolean;
  }

  override getAuthenticateOptions(): OidcPhaseOptions {
    return { phase: this.phase, session: false };
  }

  override handleRequest<TUser = SsoOutcome>(error: unknown, user: unknown, info: unknown): TUser {
    if (!error && user) {
      const { user: account, linked } = user as SsoResult;
      return { ok: true, user: account, linked } as TUser;
    }
    if (error instanceof SsoRefusal) {
      this.logger.warn(`Single sign-on refused: ${error.message}`);
      return { ok: false, reason: error.reason } as TUser;
    }
    const why =
      error instanceof Error
        ? `${error.name}: ${error.message}`
        : ((info as { message?: string } | undefined)?.message ?? 'no user');
    this.logger.warn(`Single sign-on failed at the ${this.phase}: ${why}`);
    return { ok: false, reason: 'failed' } as TUser;
  }
}

@Injectable()
export class OidcLoginGuard extends OidcGuard {
  constructor(oidc: OidcClient, box: SecretBox, config: AppConfig) {
    super(oidc, box, config, 'login');
  }
}

@Injectable()
export class OidcCallbackGuard extends OidcGuard {
  constructor(oidc: OidcClient, box: SecretBox, config: AppConfig) {
    super(oidc, box, config, 'callback');
  }
}
