import { BadRequestException, ExecutionContext, Injectable } from '@nestjs/common';
import { AuthGuard } from '@nestjs/passport';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import type { Request } from 'express';
import { SignInDto } from '../dto/sign-in.dto';
import { SignInThrottle } from '../sign-in-throttle';

/**
 * Sign-in: validates the body, refuses a throttled (username, address) with 429, then runs the
 * local strategy and records the outcome for throttling.
 */
@Injectable()
export class LocalAuthGuard extends AuthGuard('local') {
  constructor(private readonly throttle: SignInThrottle) {
    super();
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<Request>();
    const dto = plainToInstance(SignInDto, request.body ?? {});
    const errors = await validate(dto, { whitelist: true, forbidNonWhitelisted: true });
    if (errors.length > 0) {
      throw new BadRequestException(errors.flatMap((e) => Object.values(e.constraints ?? {})));
    }
    const address = request.ip ?? 'unknown';
    await this.throttle.check(dto.username, address);
    try {
      const ok = (await super.canActivate(context)) as boolean;
      await this.throttle.recordSuccess(dto.username, address);
      return ok;
    } catch (error) {
      await this.throttle.recordFailure(dto.username, address);
      throw error;
    }
  }
}
