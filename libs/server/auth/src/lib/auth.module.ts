import { Module } from '@nestjs/common';
import { Metrics } from '@arrbiter/server/metrics';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AccountsService } from './accounts.service';
import { AdminUsersService } from './admin-users.service';
import { AdminsController } from './admins.controller';
import { ApiTokensService } from './api-tokens.service';
import { AUTH_ENTITIES } from './auth-entities';
import { AuthController } from './auth.controller';
import { BearerThrottle } from './bearer-throttle';
import { DeviceCookie } from './device-cookie';
import { ForwardAuth } from './forward-auth';
import { AuthenticationGuard } from './guards/authentication.guard';
import { OidcCallbackGuard, OidcLoginGuard } from './guards/oidc.guard';
import { OriginGuard } from './guards/origin.guard';
import { RolesGuard } from './guards/roles.guard';
import { OidcClient } from './oidc/oidc-client';
import { PasswordHasher } from './password-hasher';
import { SessionsService } from './sessions.service';
import { SignInThrottle } from './sign-in-throttle';
import { LocalStrategy } from './strategies/local.strategy';
import { TokensController } from './tokens.controller';

/**
 * Administrators: accounts and roles, sign-in (password, single sign-on, trusted forward-auth),
 * sessions and API tokens. The root module registers `OriginGuard`, `AuthenticationGuard` and
 * `RolesGuard` as global guards, in that order: every route is denied unless marked `@Public()` or
 * opened to a role with `@MinRole()`.
 */
@Module({
  imports: [PassportModule, TypeOrmModule.forFeature(AUTH_ENTITIES)],
  controllers: [AuthController, AdminsController, TokensController],
  providers: [
    AdminUsersService,
    AccountsService,
    ApiTokensService,
    PasswordHasher,
    SessionsService,
    ForwardAuth,
    OidcClient,
    DeviceCookie,
    {
      provide: SignInThrottle,
      useFactory: (dataSource: DataSource, metrics: Metrics | undefined) =>
        SignInThrottle.sharedThrough(dataSource, metrics ?? null),
      inject: [DataSource, { token: Metrics, optional: true }],
    },
    {
      provide: BearerThrottle,
      useFactory: (dataSource: DataSource) => BearerThrottle.sharedThrough(dataSource),
      inject: [DataSource],
    },
    LocalStrategy,
    OidcLoginGuard,
    OidcCallbackGuard,
    OriginGuard,
    AuthenticationGuard,
    RolesGuard,
  ],
  exports: [AdminUsersService, SessionsService, OriginGuard, AuthenticationGuard, RolesGuard],
})
export class AuthModule {}
