import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  Injectable,
  NotFoundException,
  UnauthorizedException,
} from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import type { ApiTokenDto, CreatedTokenResponse } from '@arrbiter/contracts';
import { Clock } from '@arrbiter/server/config';
import { keyDigest } from '@arrbiter/server/crypto';
import { ChangesService } from '@arrbiter/server/history';
import { isUniqueViolation } from '@arrbiter/server/http';
import { Repository } from 'typeorm';
import { BearerThrottle } from './bearer-throttle';
import { CreateTokenDto } from './dto/create-token.dto';
import { ApiTokenEntity } from './entities/api-token.entity';
import { AdminPrincipal, hasRole, lowerRole } from '@arrbiter/server/access';

/** `arb_` then 256 random bits in base64url. */
export const API_TOKEN_PATTERN = /^arb_[A-Za-z0-9_-]{43}$/;
/** `last_used_at` is written at most this often per token. */
const TOUCH_INTERVAL_MS = 60_000;
/** The most tokens one account may hold. */
export const MAX_TOKENS_PER_ACCOUNT = 50;

const REFUSED = 'The API token is unknown, revoked or expired';

function toTokenDto(token: ApiTokenEntity): ApiTokenDto {
  return {
    id: token.id,
    name: token.name,
    role: token.role,
    createdBy: token.adminUser?.username ?? '',
    createdAt: token.createdAt.toISOString(),
    expiresAt: token.expiresAt?.toISOString() ?? null,
    lastUsedAt: token.lastUsedAt?.toISOString() ?? null,
  };
}

/**
 * API tokens for automation. Each request with one looks it up by its digest in the database: no
 * cache, so a revoked token stops at once on every replica. Refused tokens are throttled per address.
 */
@Injectable()
export class ApiTokensService {
  constructor(
    @InjectRepository(ApiTokenEntity) private readonly tokenRepository: Repository<ApiTokenEntity>,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly throttle: BearerThrottle,
    private readonly audit: ChangesService,
    private readonly clock: Clock,
  ) {}

  private get tokens(): Repository<ApiTokenEntity> {
    return this.txHost.tx.withRepository(this.tokenRepository);
  }

  /** Creates a token for the caller, with a role no higher than theirs; its value is in the answer only. */
  async create(creator: AdminPrincipal, dto: CreateTokenDto): Promise<CreatedTokenResponse> {
    if (creator.credential === 'token') throw new ForbiddenException('An API token cannot create tokens');
    if (!hasRole(creator.role, dto.role)) {
      throw new ForbiddenException(`A token's role cannot be above yours (${creator.role})`);
    }
    const now = this.clock.date();
    const expiresAt = dto.expiresAt ? new Date(dto.expiresAt) : null;
    if (expiresAt && expiresAt.getTime() <= now.getTime()) {
      throw new BadRequestException(['expiresAt must be in the future']);
    }
    const token = `arb_${randomBytes(32).toString('base64url')}`;
    try {
      return await this.txHost.withTransaction(async () => {
        if ((await this.tokens.countBy({ adminUserId: creator.id })) >= MAX_TOKENS_PER_ACCOUNT) {
          throw new ConflictException(`An account may hold ${MAX_TOKENS_PER_ACCOUNT} tokens: revoke one first`);
        }
        const saved = await this.tokens.save(
          this.tokens.create({
            name: dto.name,
            role: dto.role,
            digest: keyDigest(token),
            adminUserId: creator.id,
            createdAt: now,
            expiresAt,
            lastUsedAt: null,
          }),
        );
        await this.record(
          creator.actor,
          'token.created',
          saved,
          `API token "${saved.name}" created with the ${saved.role} role${expiresAt ? `, expiring ${expiresAt.toISOString()}` : ''}`,
        );
        return { id: saved.id, token };
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictException(`You already have a token named "${dto.name}"`);
      throw error;
    }
  }

  /** The caller's tokens; an owner sees everyone's. Newest first. */
  async list(caller: AdminPrincipal): Promise<ApiTokenDto[]> {
    const rows = await this.tokens.find({
      where: caller.role === 'owner' ? {} : { adminUserId: caller.id },
      relations: { adminUser: true },
      order: { createdAt: 'DESC' },
    });
    return rows.map(toTokenDto);
  }

  /** Revokes one of the caller's tokens (an owner: anyone's). It stops working with this answer. */
  async revoke(caller: AdminPrincipal, id: string): Promise<void> {
    await this.txHost.withTransaction(async () => {
      const token = await this.tokens.findOne({ where: { id }, relations: { adminUser: true } });
      if (!token || (token.adminUserId !== caller.id && caller.role !== 'owner')) {
        throw new NotFoundException('No such token');
      }
      await this.tokens.delete({ id });
      await this.record(
        caller.actor,
        'token.revoked',
        token,
        `API token "${token.name}" of ${token.adminUser?.username ?? 'a deleted account'} revoked`,
      );
    });
  }

  /**
   * The principal of a bearer token: its creator acting with the token's role (capped by the creator's
   * current one), named `token:<name>` in recent changes. 401 for an unknown, revoked or expired token;
   * 429 for one once its address, or all addresses together, have had too many refusals. A valid
   * token is never refused by the throttle.
   */
  async authenticate(token: string, address: string): Promise<AdminPrincipal> {
    const now = this.clock.date();
    const found = API_TOKEN_PATTERN.test(token)
      ? await this.tokenRepository.findOne({ where: { digest: keyDigest(token) }, relations: { adminUser: true } })
      : null;
    if (!found?.adminUser || (found.expiresAt && found.expiresAt.getTime() <= now.getTime())) {
      await this.throttle.refused(address);
      throw new UnauthorizedException(REFUSED);
    }
    if (!found.lastUsedAt || now.getTime() - found.lastUsedAt.getTime() >= TOUCH_INTERVAL_MS) {
      await this.tokenRepository.update({ id: found.id }, { lastUsedAt: now });
    }
    return {
      id: found.adminUser.id,
      username: found.adminUser.username,
      role: lowerRole(found.role, found.adminUser.role),
      credential: 'token',
      tokenId: found.id,
      actor: `token:${found.name}`,
    };
  }

  private record(actor: string, action: string, token: ApiTokenEntity, summary: string): Promise<void> {
    return this.audit.record({
      actor,
      action,
      objectType: 'token',
      objectId: token.id,
      objectName: token.name,
      summary,
    });
  }
}
