import { InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { Injectable, NotFoundException } from '@nestjs/common';
import type { AuthSessionDto } from '@arrbiter/contracts';
import { AppConfig } from '@arrbiter/server/config';
import { keyDigest } from '@arrbiter/server/crypto';
import { LessThan, Not, Repository } from 'typeorm';
import { describeDevice } from './device';
import { AdminSessionEntity } from './entities/admin-session.entity';
import { AdminUserEntity } from './entities/admin-user.entity';
import { AdminPrincipal } from '@arrbiter/server/access';

/** `last_seen_at` is written at most this often per session. */
const TOUCH_INTERVAL_MS = 60_000;

/** Where a session was started or seen from. */
export interface SessionClient {
  userAgent: string | undefined;
  address: string | undefined;
}

/** Server-side admin sessions in the database. */
/** A session's administrator, and whether they still sign in with a generated password. */
export interface SessionPrincipal extends AdminPrincipal {
  passwordGenerated: boolean;
}

/** Whether the caller signed in with a generated password they have not replaced (or, as an owner, kept). */
export function signsInWithGeneratedPassword(admin: AdminPrincipal): boolean {
  return (admin as Partial<SessionPrincipal>).passwordGenerated === true;
}

@Injectable()
export class SessionsService {
  constructor(
    @InjectRepository(AdminSessionEntity) private readonly sessions: Repository<AdminSessionEntity>,
    private readonly config: AppConfig,
  ) {}

  /** Starts a session and returns its token (the cookie value); only its digest is stored. */
  async create(user: AdminUserEntity, client: SessionClient, now = new Date()): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.sessions.delete({ expiresAt: LessThan(now) });
    await this.sessions.insert({
      id: keyDigest(token),
      adminUserId: user.id,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + this.config.sessionMaxSeconds * 1000),
      userAgent: client.userAgent?.slice(0, 256) ?? null,
      address: client.address?.slice(0, 64) ?? null,
    });
    return token;
  }

  /** The administrator of a live session, or null for an unknown, idle or expired one. */
  async resolve(token: string, address?: string, now = new Date()): Promise<SessionPrincipal | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const id = keyDigest(token);
    const session = await this.sessions.findOne({ where: { id }, relations: { adminUser: true } });
    if (!session?.adminUser) return null;
    const idleUntil = session.lastSeenAt.getTime() + this.config.sessionIdleSeconds * 1000;
    if (session.expiresAt.getTime() <= now.getTime() || idleUntil <= now.getTime()) {
      await this.sessions.delete({ id });
      return null;
    }
    const moved = address !== undefined && address.slice(0, 64) !== session.address;
    if (moved || now.getTime() - session.lastSeenAt.getTime() >= TOUCH_INTERVAL_MS) {
      await this.sessions.update(
        { id },
        { lastSeenAt: now, ...(address === undefined ? {} : { address: address.slice(0, 64) }) },
      );
    }
    const { adminUser } = session;
    return {
      id: adminUser.id,
      username: adminUser.username,
      role: adminUser.role,
      credential: 'session',
      sessionId: id,
      actor: adminUser.username,
      passwordGenerated: adminUser.passwordGenerated && adminUser.passwordHash !== null,
    };
  }

  /** Ends a session; returns whose it was (undefined when there was none). */
  async revoke(token: string): Promise<string | undefined> {
    const id = keyDigest(token);
    const session = await this.sessions.findOne({ where: { id }, relations: { adminUser: true } });
    if (!session) return undefined;
    await this.sessions.delete({ id });
    return session.adminUser?.username;
  }

  /** An administrator's live sessions, most recently seen first; `currentId` marks the caller's. */
  async list(adminUserId: string, currentId: string | undefined, now = new Date()): Promise<AuthSessionDto[]> {
    const idleSince = new Date(now.getTime() - this.config.sessionIdleSeconds * 1000);
    const rows = await this.sessions
      .createQueryBuilder('s')
      .where('s.admin_user_id = :adminUserId', { adminUserId })
      .andWhere('s.expires_at > :now', { now })
      .andWhere('s.last_seen_at > :idleSince', { idleSince })
      .orderBy('s.last_seen_at', 'DESC')
      .take(100)
      .getMany();
    return rows.map((s) => ({
      id: s.ref,
      device: describeDevice(s.userAgent),
      address: s.address,
      createdAt: s.createdAt.toISOString(),
      lastSeen: s.lastSeenAt.toISOString(),
      current: s.id === currentId,
    }));
  }

  /** Ends one of an administrator's sessions by its public id; 404 when it is not theirs. */
  async revokeOwn(adminUserId: string, ref: string): Promise<void> {
    const result = await this.sessions.delete({ adminUserId, ref });
    if (!result.affected) throw new NotFoundException('No such session of yours');
  }

  /** Ends every session of an administrator except `keepId` (all of them when it is undefined). */
  async revokeAll(adminUserId: string, keepId?: string): Promise<void> {
    await this.sessions.delete(keepId === undefined ? { adminUserId } : { adminUserId, id: Not(keepId) });
  }
}
