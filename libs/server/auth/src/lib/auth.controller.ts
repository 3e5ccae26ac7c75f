import {
  Body,
  ConflictException,
  Controller,
  Delete,
  ForbiddenException,
  Get,
  HttpCode,
  HttpStatus,
  NotFoundException,
  Param,
  ParseUUIDPipe,
  Post,
  Put,
  Req,
  Res,
  ServiceUnavailableException,
  UseGuards,
} from '@nestjs/common';
import type {
  AuthSessionDto,
  SessionResponse,
  SessionStateResponse,
  SignInMethodsResponse,
  SsoLinkResponse,
} from '@arrbiter/contracts';
import { AppConfig, ExternalUrls } from '@arrbiter/server/config';
import { SecretBox } from '@arrbiter/server/crypto';
import { ChangesService } from '@arrbiter/server/history';
import type { Request, Response } from 'express';
import { AccountsService } from './accounts.service';
import { AdminUsersService } from './admin-users.service';
import { DeviceCookie } from './device-cookie';
import { ChangePasswordDto } from './dto/change-password.dto';
import { SsoLinkDto } from './dto/sso-link.dto';
import { AdminUserEntity } from './entities/admin-user.entity';
import { LocalAuthGuard } from './guards/local-auth.guard';
import { OidcCallbackGuard, OidcLoginGuard, SsoRequest } from './guards/oidc.guard';
import { OidcClient } from './oidc/oidc-client';
import { cookieSession } from './oidc/oidc-state';
import { linkOf, OidcStrategy, StateRequest } from './oidc/oidc.strategy';
import { SESSION_COOKIE, sessionCookieOptions } from './session-cookie';
import { SessionsService, signsInWithGeneratedPassword } from './sessions.service';
import { SignInThrottle } from './sign-in-throttle';
import {
  AdminPrincipal,
  AdminRequest,
  CurrentAdmin,
  OwnerAccess,
  Public,
  ReadAccess,
  SessionOnly,
  SignInOptional,
} from '@arrbiter/server/access';

@Controller('api/auth')
export class AuthController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly users: AdminUsersService,
    private readonly throttle: SignInThrottle,
    private readonly config: AppConfig,
    private readonly audit: ChangesService,
    private readonly accounts: AccountsService,
    private readonly oidc: OidcClient,
    private readonly box: SecretBox,
    private readonly devices: DeviceCookie,
    private readonly urls: ExternalUrls,
  ) {}

  /** What the sign-in page offers. */
  @Public()
  @Get('methods')
  methods(): SignInMethodsResponse {
    return {
      password: this.config.passwordSignIn,
      sso: this.config.oidc ? { label: this.config.oidc.label } : null,
    };
  }

  @Public()
  @UseGuards(LocalAuthGuard)
  @Post('sign-in')
  @HttpCode(HttpStatus.OK)
  async signIn(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<SessionResponse> {
    const user = request.user as AdminUserEntity;
    await this.startSession(user, request, response, 'Signed in');
    this.devices.issue(response, user.username);
    return {
      username: user.username,
      role: user.role,
      publicUrlSet: this.urls.configured,
      passwordGenerated: user.passwordGenerated,
    };
  }

  /** Single sign-on: the guard answers with the redirect to the provider (or here, when it cannot). */
  @Public()
  @UseGuards(OidcLoginGuard)
  @Get('oidc/login')
  oidcLogin(@Req() request: SsoRequest, @Res() response: Response): void {
    response.redirect(HttpStatus.FOUND, this.signInPage(request, request.user));
  }

  /** Where the provider sends the browser back: a session as a password sign-in makes, then the dashboard. */
  @Public()
  @UseGuards(OidcCallbackGuard)
  @Get('oidc/callback')
  async oidcCallback(@Req() request: SsoRequest, @Res() response: Response): Promise<void> {
    const outcome = request.user;
    if (linkOf(request as StateRequest)) {
      // A link started from the account page goes back there, saying how it went; no new session.
      const result = outcome?.ok ? 'linked' : (outcome?.reason ?? 'failed');
      response.redirect(HttpStatus.FOUND, `${this.urls.prefixOf(request)}/account?sso=${result}`);
      return;
    }
    if (!outcome?.ok) {
      response.redirect(HttpStatus.FOUND, this.signInPage(request, outcome));
      return;
    }
    await this.startSession(outcome.user, request, response, 'Signed in through single sign-on');
    response.redirect(HttpStatus.FOUND, `${this.urls.prefixOf(request)}/`);
  }

  /**
   * Links the caller's own account to single sign-on: an explicit act of a password session, which
   * types the password again (throttled as a sign-in). Starts the provider's flow in link mode and
   * answers where the browser goes; the callback binds the identity that signs in there to this
   * account (never another), then returns to the account page.
   */
  @ReadAccess()
  @SessionOnly()
  @Post('oidc/link')
  @HttpCode(HttpStatus.OK)
  async oidcLink(
    @Body() dto: SsoLinkDto,
    @CurrentAdmin() admin: AdminPrincipal,
    @Req() request: StateRequest,
    @Res({ passthrough: true }) response: Response,
  ): Promise<SsoLinkResponse> {
    if (!this.oidc.configured) throw new NotFoundException('Single sign-on is not configured');
    if (admin.credential !== 'session' || admin.sessionId === undefined) {
      throw new ForbiddenException('Link single sign-on from a session signed in with your password');
    }
    await this.accounts.assertLinkable(admin.id);
    await this.throttle.attempt(
      admin.username,
      request.ip ?? 'unknown',
      async () => {
        if (!(await this.users.verify(admin.username, dto.password))) {
          throw new ForbiddenException('The password is wrong');
        }
      },
      this.devices.knows(request, admin.username),
    );
    let strategy: OidcStrategy;
    try {
      strategy = await this.oidc.ready();
    } catch {
      throw new ServiceUnavailableException('The identity provider cannot be reached right now');
    }
    request.session = cookieSession(request, response, this.box, this.config);
    const redirectTo = await strategy.beginLink(request, { accountId: admin.id, sessionId: admin.sessionId });
    return { redirectTo };
  }

  @Public()
  @Post('sign-out')
  @HttpCode(HttpStatus.NO_CONTENT)
  async signOut(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<void> {
    const token: unknown = request.cookies?.[SESSION_COOKIE];
    if (typeof token === 'string') {
      const username = await this.sessions.revoke(token);
      if (username !== undefined)
        await this.audit.record({
          actor: username,
          action: 'session.signed-out',
          objectType: 'session',
          objectName: username,
          summary: 'Signed out',
        });
    }
    const { maxAge: _maxAge, ...options } = sessionCookieOptions(this.config, this.urls, request);
    response.clearCookie(SESSION_COOKIE, options);
  }

  /**
   * Whether the caller is signed in, 200 either way (an expired or revoked session, a token that no
   * longer works: signed out), so that a dashboard's first question is no failed request.
   */
  @SignInOptional()
  @Get('state')
  state(@Req() request: AdminRequest): SessionStateResponse {
    return request.admin ? { signedIn: true, session: this.session(request.admin) } : { signedIn: false };
  }

  @ReadAccess()
  @Get('session')
  session(@CurrentAdmin() admin: AdminPrincipal): SessionResponse {
    return {
      username: admin.username,
      role: admin.role,
      publicUrlSet: this.urls.configured,
      passwordGenerated: signsInWithGeneratedPassword(admin),
    };
  }

  /**
   * An owner keeps the generated password they signed in with (remembered: not asked again). 403 for
   * an editor or viewer by the role guard (they choose their own first), 409 when the password is not
   * a generated one.
   */
  @OwnerAccess()
  @SessionOnly()
  @Post('password/keep')
  @HttpCode(HttpStatus.NO_CONTENT)
  async keepGeneratedPassword(@CurrentAdmin() admin: AdminPrincipal): Promise<void> {
    const user = await this.users.keepGeneratedPassword(admin.id);
    await this.audit.record({
      actor: admin.actor,
      action: 'account.password-kept',
      objectType: 'account',
      objectId: user.id,
      objectName: user.username,
      summary: 'Kept the generated password they sign in with',
    });
  }

  /** Changes the caller's own password (checked, and throttled as a sign-in); their other sessions end. */
  @ReadAccess()
  @Put('password')
  @HttpCode(HttpStatus.NO_CONTENT)
  async changePassword(
    @Body() dto: ChangePasswordDto,
    @CurrentAdmin() admin: AdminPrincipal,
    @Req() request: Request,
  ): Promise<void> {
    if (!this.config.passwordSignIn) throw new ConflictException('Password sign-in is off (PASSWORD_SIGN_IN=false)');
    const user = await this.throttle.attempt(
      admin.username,
      request.ip ?? 'unknown',
      () => this.users.changePassword(admin.id, dto.currentPassword, dto.newPassword, admin.sessionId),
      this.devices.knows(request, admin.username),
    );
    await this.audit.record({
      actor: admin.actor,
      action: 'account.password-changed',
      objectType: 'account',
      objectId: user.id,
      objectName: user.username,
      summary: 'Changed their own password (their other sessions ended)',
    });
  }

  @ReadAccess()
  @Get('sessions')
  listSessions(@CurrentAdmin() admin: AdminPrincipal): Promise<AuthSessionDto[]> {
    return this.sessions.list(admin.id, admin.sessionId);
  }

  @ReadAccess()
  @Delete('sessions/:id')
  @HttpCode(HttpStatus.NO_CONTENT)
  endSession(@Param('id', ParseUUIDPipe) id: string, @CurrentAdmin() admin: AdminPrincipal): Promise<void> {
    return this.sessions.revokeOwn(admin.id, id);
  }

  private async startSession(user: AdminUserEntity, request: Request, response: Response, summary: string) {
    const address = request.ip;
    const token = await this.sessions.create(user, { userAgent: request.headers['user-agent'], address });
    await this.audit.record({
      actor: user.username,
      action: 'session.signed-in',
      objectType: 'session',
      objectId: user.id,
      objectName: user.username,
      summary: `${summary} from ${address ?? 'an unknown address'}`,
    });
    response.cookie(SESSION_COOKIE, token, sessionCookieOptions(this.config, this.urls, request));
  }

  /** The sign-in page, saying why single sign-on did not sign the browser in. */
  private signInPage(request: Request, outcome: SsoRequest['user']): string {
    return `${this.urls.prefixOf(request)}/sign-in?sso=${outcome && !outcome.ok ? outcome.reason : 'failed'}`;
  }
}
