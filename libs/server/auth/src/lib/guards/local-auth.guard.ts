import { BadRequestException, ExecutionContext, ForbiddenException, Injectable } from '@nestjs/common';
import { AppConfig } from '@arrbiter/server/config';
import { AuthGuard } from '@nestjs/passport';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import type { Request } from 'express';
import { SignInDto } from '../dto/sign-in.dto';
import { DeviceCookie } from '../device-cookie';
import { SignInThrottle } from '../sign-in-throttle';

/**
 * Sign-in: validates the body, then runs the local strategy as one throttled attempt of this
 * (username, address), and of this username from anywhere unless the browser is a known device:
 * refused with 429 before the password is checked when none is left.
 */
@Injectable()
export class LocalAuthGuard extends AuthGuard('local') {
  constructor(
    private readonly throttle: SignInThrottle,
    private readonly config: AppConfig,
    private readonly devices: DeviceCookie,
  ) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (!this.config.passwordSignIn) {
      throw new ForbiddenException('Password sign-in is off (PASSWORD_SIGN_IN=false): use single sign-on');
    }
    const request = context.switchToHttp().getRequest<Request>();
    const dto = plainToInstance(SignInDto, request.body ?? {});
    const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true });
    if (errors.length > 0) {
      throw new BadRequestException(errors.flatMap((e) => Object.values(e.constraints ?? {})));
    }
    const address = request.ip ?? 'unknown';
    return this.throttle.attempt(
      dto.username,
      address,
      async () => (await super.canActivate(context)) as boolean,
      this.devices.knows(request, dto.username),
    );
  }
}
