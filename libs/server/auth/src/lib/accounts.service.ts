import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ConflictException, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { AdminAccountDto, AdminRole } from '@arrbiter/contracts';
import { AppConfig } from '@arrbiter/server/config';
import { ADMIN_ROLES_LOCK } from '@arrbiter/server/database';
import { ChangesService } from '@arrbiter/server/history';
import { isUniqueViolation } from '@arrbiter/server/http';
import { Not, Repository } from 'typeorm';
import { CreateAdminDto, UpdateAdminDto } from './dto/admin.dto';
import { AdminSessionEntity } from './entities/admin-session.entity';
import { AdminUserEntity } from './entities/admin-user.entity';
import { PasswordHasher } from './password-hasher';
import { isReservedUsername, RESERVED_USERNAME_MESSAGE } from './reserved-usernames';
import { AdminPrincipal, highestRole } from '@arrbiter/server/access';

/** Usernames, as stored (lower case). */
export const USERNAME_PATTERN = /^[a-z0-9._@-]{1,64}$/;

/**
 * Why single sign-on let someone in at the provider but not here (the sign-in page explains each):
 * `link-required`, an account of that name has a password or is an owner, so it is linked only by an
 * explicit act (its own, signed in with its password, or an owner's); `last-owner`, the role claim
 * would demote the last owner.
 */
export type SsoRefusalReason =
  | 'no-account'
  | 'no-role'
  | 'conflict'
  | 'invalid-username'
  | 'link-required'
  | 'last-owner';

export class SsoRefusal extends Error {
  constructor(
    readonly reason: SsoRefusalReason | 'failed',
    message: string,
  ) {
    super(message);
    this.name = 'SsoRefusal';
  }
}

/** Who the OpenID provider says signed in: the identity is (issuer, subject), nothing else. */
export interface SsoIdentity {
  /** The ID token's `iss` (the discovered issuer). */
  issuer: string;
  /** The provider's `sub`. */
  subject: string;
  /** From `preferred_username` (else a verified `email`), lower-cased: only to find an account to link. */
  username: string | undefined;
  /** The role claim's value(s). */
  roleValues: readonly string[];
}

export function toAccountDto(user: AdminUserEntity): AdminAccountDto {
  return {
    id: user.id,
    username: user.username,
    role: user.role,
    hasPassword: user.passwordHash !== null,
    sso: user.oidcSubject !== null,
    createdAt: user.createdAt.toISOString(),
  };
}

/**
 * Administrator accounts: the owners' accounts API, and the accounts single sign-on and forward-auth
 * sign people in to. Every change of a role or of who exists holds `ADMIN_ROLES_LOCK` in its
 * transaction and counts the owners again under it, so that two changes made at once cannot both take
 * away the last owner.
 */
@Injectable()
export class AccountsService {
  private readonly logger = new Logger(AccountsService.name);

  constructor(
    @InjectRepository(AdminUserEntity) private readonly userRepository: Repository<AdminUserEntity>,
    @InjectRepository(AdminSessionEntity) private readonly sessionRepository: Repository<AdminSessionEntity>,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly hasher: PasswordHasher,
    private readonly audit: ChangesService,
    private readonly config: AppConfig,
  ) {}

  private get users(): Repository<AdminUserEntity> {
    return this.txHost.tx.withRepository(this.userRepository);
  }

  async list(): Promise<AdminAccountDto[]> {
    return (await this.users.find({ order: { username: 'ASC' } })).map(toAccountDto);
  }

  async create(actor: AdminPrincipal, dto: CreateAdminDto): Promise<AdminAccountDto> {
    const username = dto.username.toLowerCase();
    const passwordHash = dto.password === undefined ? null : await this.hasher.hash(dto.password);
    try {
      return await this.txHost.withTransaction(async () => {
        const user = await this.users.save(this.users.create({ username, passwordHash, role: dto.role }));
        await this.record(actor.actor, 'account.created', user, `Account "${username}" created as ${dto.role}`);
        return toAccountDto(user);
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw new ConflictException(`There is already an account named "${username}"`);
      throw error;
    }
  }

  /** Changes an account's role and/or password; a new password ends that account's sessions. */
  async update(actor: AdminPrincipal, id: string, dto: UpdateAdminDto): Promise<AdminAccountDto> {
    const passwordHash = dto.password === undefined ? undefined : await this.hasher.hash(dto.password);
    return this.txHost.withTransaction(async () => {
      await this.lockRoles();
      const user = await this.find(id);
      const changes: string[] = [];
      if (dto.role !== undefined && dto.role !== user.role) {
        if (user.role === 'owner')
          await this.keepAnOwner(user, `"${user.username}" is the last owner: make someone else owner first`);
        changes.push(`role ${user.role} → ${dto.role}`);
        user.role = dto.role;
      }
      if (passwordHash !== undefined) {
        user.passwordHash = passwordHash;
        await this.txHost.tx.withRepository(this.sessionRepository).delete({ adminUserId: user.id });
        changes.push('password set (its sessions ended)');
      }
      if (changes.length === 0) return toAccountDto(user);
      await this.users.save(user);
      await this.record(actor.actor, 'account.updated', user, `Account "${user.username}": ${changes.join(', ')}`);
      return toAccountDto(user);
    });
  }

  /** Deletes an account with its sessions and tokens; never one's own, never the last owner. */
  async remove(actor: AdminPrincipal, id: string): Promise<void> {
    await this.txHost.withTransaction(async () => {
      await this.lockRoles();
      const user = await this.find(id);
      if (user.id === actor.id) throw new ConflictException('You cannot delete your own account');
      if (user.role === 'owner')
        await this.keepAnOwner(user, `"${user.username}" is the last owner and cannot be deleted`);
      await this.users.delete({ id: user.id });
      await this.record(actor.actor, 'account.deleted', user, `Account "${user.username}" (${user.role}) deleted`);
    });
  }

  /**
   * The account a single sign-on identity signs in to: the one bound to its (issuer, subject); else
   * the account of its username when an owner made that one for single sign-on (no password, not an
   * owner, never linked: it is linked then), else a new one when `OIDC_AUTO_CREATE` is on. An account
   * with a password or an owner is never linked by its name (`link-required`): its holder links it
   * (`linkSso`), signed in with the password. The one exception is the first owner that
   * `ADMIN_USERNAME` names with `PASSWORD_SIGN_IN=false`: the operator made it for single sign-on.
   * With `OIDC_ROLE_MAP` set, the role comes from the claim at every sign-in (the highest mapped value,
   * else `OIDC_DEFAULT_ROLE`, else refused); a claim that would demote the last owner is refused
   * (`last-owner`), never answered with owner. Without the map, an existing account keeps its role.
   */
  async signInWithSso(identity: SsoIdentity): Promise<AdminUserEntity> {
    const oidc = this.config.oidc;
    if (!oidc) throw new Error('Single sign-on is not configured');
    const mapped = highestRole(oidc.roleMap.filter((m) => identity.roleValues.includes(m.value)).map((m) => m.role));
    const claimRole: AdminRole | undefined = mapped ?? oidc.defaultRole;
    return this.txHost.withTransaction(async () => {
      await this.lockRoles();
      let user = await this.users.findOneBy({ oidcIssuer: identity.issuer, oidcSubject: identity.subject });
      if (!user) {
        const username = identity.username;
        if (username === undefined || !USERNAME_PATTERN.test(username)) {
          throw new SsoRefusal(
            'invalid-username',
            `The provider's preferred_username/verified email ${JSON.stringify(username ?? null)} is not a usable username`,
          );
        }
        if (isReservedUsername(username)) {
          throw new SsoRefusal(
            'invalid-username',
            `The provider names "${username}", which is reserved: ${RESERVED_USERNAME_MESSAGE}`,
          );
        }
        user = await this.users.findOneBy({ username });
        if (user?.oidcSubject) {
          throw new SsoRefusal('conflict', `Account "${username}" is linked to another single sign-on identity`);
        }
        if (user) {
          if (!this.linksByName(user)) {
            throw new SsoRefusal(
              'link-required',
              `Account "${username}" ${user.passwordHash !== null ? 'has a password' : 'is an owner'}: ` +
                'it is linked to single sign-on only by signing in with its password and linking it from the account page, or by an owner',
            );
          }
          user.oidcIssuer = identity.issuer;
          user.oidcSubject = identity.subject;
          await this.users.update({ id: user.id }, { oidcIssuer: identity.issuer, oidcSubject: identity.subject });
          await this.record(
            username,
            'account.sso-linked',
            user,
            `Account "${username}" linked to single sign-on at its first sign-in (${identity.issuer})`,
          );
        } else if (!oidc.autoCreate) {
          throw new SsoRefusal('no-account', `"${username}" has no account and OIDC_AUTO_CREATE is off`);
        } else if (claimRole === undefined) {
          throw new SsoRefusal('no-role', `"${username}" has no mapped ${oidc.roleClaim} value`);
        } else {
          user = await this.users.save(
            this.users.create({
              username,
              passwordHash: null,
              role: claimRole,
              oidcIssuer: identity.issuer,
              oidcSubject: identity.subject,
            }),
          );
          await this.record(
            username,
            'account.created',
            user,
            `Account "${username}" created at its first single sign-on as ${claimRole}`,
          );
          return user;
        }
      }
      if (oidc.roleMap.length === 0) return user;
      if (claimRole === undefined) {
        throw new SsoRefusal('no-role', `"${user.username}" has no mapped ${oidc.roleClaim} value`);
      }
      if (claimRole !== user.role) {
        if (user.role === 'owner' && (await this.otherOwners(user)) === 0) {
          // Refused, not answered with owner: the provider says this person is no owner any more.
          throw new SsoRefusal(
            'last-owner',
            `"${user.username}" is the last owner and the ${oidc.roleClaim} claim maps to ${claimRole}: ` +
              'make someone else owner first, or map this identity to owner',
          );
        }
        const before = user.role;
        user.role = claimRole;
        await this.users.update({ id: user.id }, { role: claimRole });
        await this.record(
          user.username,
          'account.updated',
          user,
          `Account "${user.username}": role ${before} → ${claimRole} from the ${oidc.roleClaim} claim`,
        );
      }
      return user;
    });
  }

  /**
   * Links the account of a password session to a single sign-on identity: the callback of the flow
   * that account started (`POST /api/auth/oidc/link`). The session must still be live; the account
   * must not be linked yet, nor the identity to another account.
   */
  async linkSso(accountId: string, sessionId: string, identity: SsoIdentity): Promise<AdminUserEntity> {
    return this.txHost.withTransaction(async () => {
      await this.lockRoles();
      const session = await this.txHost.tx
        .withRepository(this.sessionRepository)
        .findOneBy({ id: sessionId, adminUserId: accountId });
      const user = await this.users.findOneBy({ id: accountId });
      if (!session || !user) throw new SsoRefusal('failed', 'The session that started the link has ended');
      if (user.oidcSubject !== null) {
        throw new SsoRefusal('conflict', `Account "${user.username}" is already linked: an owner unlinks it first`);
      }
      const holder = await this.users.findOneBy({ oidcIssuer: identity.issuer, oidcSubject: identity.subject });
      if (holder) {
        throw new SsoRefusal('conflict', `This single sign-on identity is already linked to "${holder.username}"`);
      }
      user.oidcIssuer = identity.issuer;
      user.oidcSubject = identity.subject;
      await this.users.update({ id: user.id }, { oidcIssuer: identity.issuer, oidcSubject: identity.subject });
      await this.record(
        user.username,
        'account.sso-linked',
        user,
        `Account "${user.username}" linked to single sign-on by itself (${identity.issuer})`,
      );
      return user;
    });
  }

  /** 409 unless the account may link itself now: it has a password and is not linked yet. */
  async assertLinkable(accountId: string): Promise<void> {
    const user = await this.find(accountId);
    if (user.passwordHash === null) {
      throw new ConflictException('This account has no password: it is linked at its first single sign-on');
    }
    if (user.oidcSubject !== null) {
      throw new ConflictException('This account is already linked to single sign-on: an owner can unlink it');
    }
  }

  /**
   * An owner unlinks an account from its single sign-on identity. Its sessions end (but the caller's
   * own): what the identity signed in stops with it.
   */
  async unlinkSso(actor: AdminPrincipal, id: string): Promise<void> {
    await this.txHost.withTransaction(async () => {
      const user = await this.find(id);
      if (user.oidcSubject === null && user.oidcIssuer === null) return;
      await this.users.update({ id: user.id }, { oidcIssuer: null, oidcSubject: null });
      const sessions = this.txHost.tx.withRepository(this.sessionRepository);
      await sessions.delete(
        actor.sessionId === undefined ? { adminUserId: user.id } : { adminUserId: user.id, id: Not(actor.sessionId) },
      );
      await this.record(
        actor.actor,
        'account.sso-unlinked',
        user,
        `Account "${user.username}" unlinked from single sign-on (its sessions ended)`,
      );
    });
  }

  /**
   * Binds the accounts linked before issuers were recorded (a subject, no issuer) to `issuer`, the
   * provider the server has just discovered: the one they were linked through, as OIDC_ISSUER has
   * not changed across the upgrade. Runs before any sign-in can look an identity up.
   */
  async bindLegacyIdentities(issuer: string): Promise<void> {
    const result = await this.userRepository
      .createQueryBuilder()
      .update()
      .set({ oidcIssuer: issuer })
      .where('oidc_subject IS NOT NULL AND oidc_issuer IS NULL')
      .execute();
    if (result.affected)
      this.logger.log(
        `Bound ${result.affected} single sign-on account(s) linked before issuers were kept to ${issuer}`,
      );
  }

  /** Whether an SSO sign-in may link itself to this unlinked account by its username alone. */
  private linksByName(user: AdminUserEntity): boolean {
    if (user.passwordHash !== null || user.oidcSubject !== null) return false;
    if (user.role !== 'owner') return true;
    // The first owner the operator named for single sign-on (ADMIN_USERNAME with PASSWORD_SIGN_IN=false).
    return !this.config.passwordSignIn && user.username === this.config.adminUsername?.toLowerCase();
  }

  /**
   * The account a trusted forward-auth header names, or null when there is none: created as a viewer
   * when `TRUSTED_AUTH_AUTO_CREATE` is on.
   */
  async forwardAuthAccount(username: string): Promise<AdminUserEntity | null> {
    if (isReservedUsername(username)) return null;
    const existing = await this.users.findOneBy({ username });
    if (existing || !this.config.trustedAuth?.autoCreate) return existing;
    try {
      return await this.txHost.withTransaction(async () => {
        const user = await this.users.save(this.users.create({ username, passwordHash: null, role: 'viewer' }));
        await this.record(
          username,
          'account.created',
          user,
          `Account "${username}" created as viewer at its first forward-auth request`,
        );
        return user;
      });
    } catch (error) {
      // Two first requests at once: the other one created it.
      if (isUniqueViolation(error)) return this.users.findOneBy({ username });
      throw error;
    }
  }

  private async find(id: string): Promise<AdminUserEntity> {
    const user = await this.users.findOneBy({ id });
    if (!user) throw new NotFoundException('No such account');
    return user;
  }

  private async lockRoles(): Promise<void> {
    await this.txHost.tx.query('SELECT pg_advisory_xact_lock($1)', [ADMIN_ROLES_LOCK]);
  }

  private otherOwners(user: AdminUserEntity): Promise<number> {
    return this.users
      .createQueryBuilder('u')
      .where("u.role = 'owner'")
      .andWhere('u.id <> :id', { id: user.id })
      .getCount();
  }

  /** 409 unless another owner remains (call under `lockRoles`). */
  private async keepAnOwner(user: AdminUserEntity, message: string): Promise<void> {
    if ((await this.otherOwners(user)) === 0) throw new ConflictException(message);
  }

  private record(actor: string, action: string, user: AdminUserEntity, summary: string): Promise<void> {
    return this.audit.record({
      actor,
      action,
      objectType: 'account',
      objectId: user.id,
      objectName: user.username,
      summary,
    });
  }
}
