import { Module } from '@nestjs/common';
import { Metrics } from '@arrbiter/server/metrics';
import { PassportModule } from '@nestjs/passport';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { AUTH_ENTITIES } from './auth-entities';
import { AdminUsersService } from './admin-users.service';
import { AuthController } from './auth.controller';
import { OriginGuard } from './guards/origin.guard';
import { SessionGuard } from './guards/session.guard';
import { PasswordHasher } from './password-hasher';
import { SessionsService } from './sessions.service';
import { SignInThrottle } from './sign-in-throttle';
import { LocalStrategy } from './strategies/local.strategy';

/**
 * Administrators, sign-in and sessions. The root module registers `OriginGuard` then `SessionGuard`
 * as global guards, so every route is denied unless marked `@Public()`.
 */
@Module({
  imports: [PassportModule, TypeOrmModule.forFeature(AUTH_ENTITIES)],
  controllers: [AuthController],
  providers: [
    AdminUsersService,
    PasswordHasher,
    SessionsService,
    {
      provide: SignInThrottle,
      useFactory: (dataSource: DataSource, metrics: Metrics | undefined) =>
        SignInThrottle.sharedThrough(dataSource, metrics ?? null),
      inject: [DataSource, { token: Metrics, optional: true }],
    },
    LocalStrategy,
    OriginGuard,
    SessionGuard,
  ],
  exports: [AdminUsersService, SessionsService, OriginGuard, SessionGuard],
})
export class AuthModule {}
