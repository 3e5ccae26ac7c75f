import { InjectRepository } from '@nestjs/typeorm';
import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppConfig } from '@arrbiter/server/config';
import { keyDigest } from '@arrbiter/server/crypto';
import { LessThan, Repository } from 'typeorm';
import { AdminPrincipal } from './admin-principal';
import { AdminSessionEntity } from './entities/admin-session.entity';
import { AdminUserEntity } from './entities/admin-user.entity';

/** `last_seen_at` is written at most this often per session. */
const TOUCH_INTERVAL_MS = 60_000;

/** Server-side admin sessions in the database. */
@Injectable()
export class SessionsService {
  constructor(
    @InjectRepository(AdminSessionEntity) private readonly sessions: Repository<AdminSessionEntity>,
    private readonly config: AppConfig,
  ) {}

  /** Starts a session and returns its token (the cookie value); only its digest is stored. */
  async create(user: AdminUserEntity, userAgent: string | undefined, now = new Date()): Promise<string> {
    const token = randomBytes(32).toString('base64url');
    await this.sessions.delete({ expiresAt: LessThan(now) });
    await this.sessions.insert({
      id: keyDigest(token),
      adminUserId: user.id,
      createdAt: now,
      lastSeenAt: now,
      expiresAt: new Date(now.getTime() + this.config.sessionMaxSeconds * 1000),
      userAgent: userAgent?.slice(0, 256) ?? null,
    });
    return token;
  }

  /** The administrator of a live session, or null for an unknown, idle or expired one. */
  async resolve(token: string, now = new Date()): Promise<AdminPrincipal | null> {
    if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
    const id = keyDigest(token);
    const session = await this.sessions.findOne({ where: { id }, relations: { adminUser: true } });
    if (!session?.adminUser) return null;
    const idleUntil = session.lastSeenAt.getTime() + this.config.sessionIdleSeconds * 1000;
    if (session.expiresAt.getTime() <= now.getTime() || idleUntil <= now.getTime()) {
      await this.sessions.delete({ id });
      return null;
    }
    if (now.getTime() - session.lastSeenAt.getTime() >= TOUCH_INTERVAL_MS) {
      await this.sessions.update({ id }, { lastSeenAt: now });
    }
    return { id: session.adminUser.id, username: session.adminUser.username, sessionId: id };
  }

  /** Ends a session; returns whose it was (undefined when there was none). */
  async revoke(token: string): Promise<string | undefined> {
    const id = keyDigest(token);
    const session = await this.sessions.findOne({ where: { id }, relations: { adminUser: true } });
    if (!session) return undefined;
    await this.sessions.delete({ id });
    return session.adminUser?.username;
  }
}
