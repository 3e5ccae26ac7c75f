import { Injectable, UnauthorizedException } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-local';
import { AdminUsersService } from '../admin-users.service';
import { AdminUserEntity } from '../entities/admin-user.entity';

export const INVALID_CREDENTIALS = 'Invalid username or password';

/** Username and password sign-in (`@nestjs/passport` local strategy). */
@Injectable()
export class LocalStrategy extends PassportStrategy(Strategy) {
  constructor(private readonly users: AdminUsersService) {
    super({ usernameField: 'username', passwordField: 'password', session: false });
  }

  async validate(username: string, password: string): Promise<AdminUserEntity> {
    const user = await this.users.verify(username, password);
    if (!user) throw new UnauthorizedException(INVALID_CREDENTIALS);
    return user;
  }
}
