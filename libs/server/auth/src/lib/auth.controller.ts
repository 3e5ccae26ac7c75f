import { Controller, Get, HttpCode, HttpStatus, Post, Req, Res, UseGuards } from '@nestjs/common';
import { SessionResponse } from '@arrbiter/contracts';
import { AppConfig } from '@arrbiter/server/config';
import { ChangesService } from '@arrbiter/server/history';
import type { Request, Response } from 'express';
import { AdminPrincipal, CurrentAdmin } from './admin-principal';
import { Public } from './decorators/public.decorator';
import { AdminUserEntity } from './entities/admin-user.entity';
import { LocalAuthGuard } from './guards/local-auth.guard';
import { SESSION_COOKIE, sessionCookieOptions } from './session-cookie';
import { SessionsService } from './sessions.service';

@Controller('api/auth')
export class AuthController {
  constructor(
    private readonly sessions: SessionsService,
    private readonly config: AppConfig,
    private readonly audit: ChangesService,
  ) {}

  @Public()
  @UseGuards(LocalAuthGuard)
  @Post('sign-in')
  @HttpCode(HttpStatus.OK)
  async signIn(@Req() request: Request, @Res({ passthrough: true }) response: Response): Promise<SessionResponse> {
    const user = request.user as AdminUserEntity;
    const token = await this.sessions.create(user, request.headers['user-agent']);
    await this.audit.record({
      actor: user.username,
      action: 'session.signed-in',
      objectType: 'session',
      objectId: user.id,
      objectName: user.username,
      summary: `Signed in from ${request.ip ?? 'an unknown address'}`,
    });
    response.cookie(SESSION_COOKIE, token, sessionCookieOptions(this.config));
    return { username: user.username };
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
    const { maxAge: _maxAge, ...options } = sessionCookieOptions(this.config);
    response.clearCookie(SESSION_COOKIE, options);
  }

  @Get('session')
  session(@CurrentAdmin() admin: AdminPrincipal): SessionResponse {
    return { username: admin.username };
  }
}
