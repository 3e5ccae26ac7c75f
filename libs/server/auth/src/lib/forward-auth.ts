import { Injectable, Logger, UnauthorizedException } from '@nestjs/common';
import { AppConfig } from '@arrbiter/server/config';
import type { Request } from 'express';
import proxyAddr from 'proxy-addr';
import { AccountsService, USERNAME_PATTERN } from './accounts.service';
import { isReservedUsername, RESERVED_USERNAME_MESSAGE } from './reserved-usernames';
import { AdminPrincipal } from '@arrbiter/server/access';

/**
 * Trusted forward-auth (`TRUSTED_AUTH_HEADER`): a front proxy such as Authelia or Authentik signs the
 * user in and names them in a header. Honoured only when the request's TCP peer — the connection's own
 * address, never `X-Forwarded-For`, whatever `TRUST_PROXY` says — is in `TRUSTED_AUTH_FROM`; from
 * anywhere else the header is ignored. Only existing accounts, or new viewers with
 * `TRUSTED_AUTH_AUTO_CREATE`.
 */
@Injectable()
export class ForwardAuth {
  private readonly logger = new Logger(ForwardAuth.name);
  private readonly header: string | undefined;
  private readonly trusts: (address: string, hop: number) => boolean;

  constructor(
    config: AppConfig,
    private readonly accounts: AccountsService,
  ) {
    this.header = config.trustedAuth?.header;
    this.trusts = proxyAddr.compile([...(config.trustedAuth?.from ?? [])]);
  }

  get enabled(): boolean {
    return this.header !== undefined;
  }

  /** Whether the connection itself comes from a trusted forward-auth proxy. */
  trustsPeer(request: Request): boolean {
    const peer = request.socket.remoteAddress;
    return peer !== undefined && this.trusts(peer, 0);
  }

  /**
   * The administrator the header names, or undefined when the request carries no header that counts
   * (none, or not from a trusted peer). 401 when it names someone without an account.
   */
  async resolve(request: Request): Promise<AdminPrincipal | undefined> {
    if (this.header === undefined) return undefined;
    const value = request.headers[this.header];
    if (typeof value !== 'string' || value.trim() === '') return undefined;
    if (!this.trustsPeer(request)) {
      this.logger.debug(
        `Ignored ${this.header} from ${request.socket.remoteAddress ?? 'an unknown peer'}: not in TRUSTED_AUTH_FROM`,
      );
      return undefined;
    }
    const username = value.trim().toLowerCase();
    if (!USERNAME_PATTERN.test(username)) {
      throw new UnauthorizedException('The forward-auth proxy named a user whose name is not a valid username');
    }
    if (isReservedUsername(username)) {
      throw new UnauthorizedException(`The forward-auth proxy named "${username}": ${RESERVED_USERNAME_MESSAGE}`);
    }
    const user = await this.accounts.forwardAuthAccount(username);
    if (!user) {
      throw new UnauthorizedException(`Your proxy signed you in as "${username}", who has no account here`);
    }
    return { id: user.id, username: user.username, role: user.role, credential: 'forward-auth', actor: user.username };
  }
}
