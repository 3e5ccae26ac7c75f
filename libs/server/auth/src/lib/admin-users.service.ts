import { InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  Injectable,
  Logger,
  NotFoundException,
  OnApplicationBootstrap,
} from '@nestjs/common';
import { AppConfig } from '@arrbiter/server/config';
import { FIRST_ADMIN_LOCK } from '@arrbiter/server/database';
import { DataSource, Not, Repository } from 'typeorm';
import { AdminSessionEntity } from './entities/admin-session.entity';
import { AdminUserEntity } from './entities/admin-user.entity';
import { firstPasswordNotice } from './first-password-notice';
import { PasswordHasher } from './password-hasher';

/** A password of 144 random bits, URL-safe, 24 characters. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

@Injectable()
export class AdminUsersService implements OnApplicationBootstrap {
  private readonly logger = new Logger(AdminUsersService.name);
  constructor(
    @InjectRepository(AdminUserEntity) private readonly users: Repository<AdminUserEntity>,
    @InjectRepository(AdminSessionEntity) private readonly sessions: Repository<AdminSessionEntity>,
    private readonly config: AppConfig,
    private readonly hasher: PasswordHasher,
  ) {}

  /** The service over a DataSource opened outside Nest (the `reset-password` command). */
  static over(dataSource: DataSource, config: AppConfig, hasher: PasswordHasher): AdminUsersService {
    return new AdminUsersService(
      dataSource.getRepository(AdminUserEntity),
      dataSource.getRepository(AdminSessionEntity),
      config,
      hasher,
    );
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.ensureFirstAdmin();
  }

  /**
   * Creates the first administrator when there is none: from ADMIN_USERNAME/ADMIN_PASSWORD, or
   * `admin` with a generated password printed once (to standard error). Never changes an existing admin.
   * Replicas starting together take turns (an advisory lock held by the transaction): one creates it,
   * the others find it.
   */
  async ensureFirstAdmin(): Promise<void> {
    if ((await this.users.count()) > 0) return;
    if (!this.config.passwordSignIn && this.config.adminUsername === undefined) {
      this.logger.warn(
        'There is no administrator and PASSWORD_SIGN_IN=false: set ADMIN_USERNAME to the name the first owner ' +
          'signs in with through single sign-on or forward-auth (or let OIDC_AUTO_CREATE map someone to owner)',
      );
      return;
    }
    const username = (this.config.adminUsername ?? 'admin').toLowerCase();
    const generated = this.config.passwordSignIn && this.config.adminPassword === undefined;
    const password = this.config.passwordSignIn ? (this.config.adminPassword ?? generatePassword()) : undefined;
    const passwordHash = password === undefined ? null : await this.hasher.hash(password);
    const created = await this.users.manager.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock($1)', [FIRST_ADMIN_LOCK]);
      const users = manager.withRepository(this.users);
      if ((await users.count()) > 0) return false;
      await users.insert({ username, passwordHash, role: 'owner', passwordGenerated: generated });
      return true;
    });
    if (!created) return;
    if (generated) {
      // The one place a password is printed, by design: the operator has no other way to learn it. It
      // goes to standard error in a block a person cannot miss, not into the JSON log (and its shippers).
      const notice = firstPasswordNotice(username, password as string, {
        embedded: this.config.databaseUrl === undefined,
        dataDir: this.config.dataDir,
      });
      this.logger.warn(notice.line);
      process.stderr.write(notice.block);
    } else {
      this.logger.log(`Created the first administrator "${username}" (owner) from ADMIN_USERNAME`);
    }
  }

  /** The administrator whose credentials these are, or null (same cost either way). */
  async verify(username: string, password: string): Promise<AdminUserEntity | null> {
    const user = await this.users.findOneBy({ username: username.toLowerCase() });
    const ok = await this.hasher.verify(user?.passwordHash ?? undefined, password);
    return ok && user ? user : null;
  }

  /**
   * Changes an administrator's own password: checks the current one, stores the new one and ends their
   * other sessions (all of them when `keepSessionId` is undefined), in one transaction.
   */
  async changePassword(
    userId: string,
    currentPassword: string,
    newPassword: string,
    keepSessionId: string | undefined,
  ): Promise<AdminUserEntity> {
    const user = await this.users.findOneBy({ id: userId });
    if (!user) throw new NotFoundException('No such administrator');
    if (user.passwordHash === null) {
      throw new ConflictException('This account has no password: it signs in through single sign-on or forward-auth');
    }
    if (!(await this.hasher.verify(user.passwordHash, currentPassword))) {
      throw new ForbiddenException('The current password is wrong');
    }
    if (currentPassword === newPassword)
      throw new BadRequestException(['newPassword must differ from the current one']);
    const hash = await this.hasher.hash(newPassword);
    await this.users.manager.transaction(async (manager) => {
      await manager
        .withRepository(this.users)
        .update({ id: user.id }, { passwordHash: hash, passwordGenerated: false });
      const sessions = manager.withRepository(this.sessions);
      await sessions.delete(
        keepSessionId === undefined ? { adminUserId: user.id } : { adminUserId: user.id, id: Not(keepSessionId) },
      );
    });
    return user;
  }

  /**
   * Sets a new password (generated when none is given: then the account is asked to choose its own at
   * the next sign-in) and ends the administrator's sessions.
   */
  async resetPassword(username: string, given?: string): Promise<string> {
    const password = given ?? generatePassword();
    const hash = await this.hasher.hash(password);
    // Both tables are this module's, and the `reset-password` command runs this without Nest (and so
    // without TransactionHost): the transaction is the repositories' own.
    await this.users.manager.transaction(async (manager) => {
      const users = manager.withRepository(this.users);
      const user = await users.findOneBy({ username: username.toLowerCase() });
      if (!user) throw new NotFoundException(`No administrator named "${username}"`);
      await users.update({ id: user.id }, { passwordHash: hash, passwordGenerated: given === undefined });
      await manager.withRepository(this.sessions).delete({ adminUserId: user.id });
    });
    return password;
  }

  /**
   * An owner keeps the generated password they sign in with: not asked again. 403 for anyone else
   * (they choose one first), 409 when the password is not a generated one.
   */
  async keepGeneratedPassword(userId: string): Promise<AdminUserEntity> {
    const user = await this.users.findOneBy({ id: userId });
    if (!user) throw new NotFoundException('No such administrator');
    if (user.role !== 'owner') {
      throw new ForbiddenException('Only an owner may keep a generated password: choose your own password');
    }
    if (!user.passwordGenerated || user.passwordHash === null) {
      throw new ConflictException('This account does not sign in with a generated password');
    }
    await this.users.update({ id: user.id, passwordGenerated: true }, { passwordGenerated: false });
    return user;
  }

  async usernames(): Promise<string[]> {
    return (await this.users.find({ order: { username: 'ASC' } })).map((u) => u.username);
  }
}
