import { Injectable } from '@nestjs/common';
import { Clock, ExternalUrls } from '@arrbiter/server/config';
import { SecretBox } from '@arrbiter/server/crypto';
import type { Request, Response } from 'express';

/** The cookie that marks a browser as one a username signed in from before. */
export const DEVICE_COOKIE = 'arrbiter_device';
const PURPOSE = 'sign-in-device';
const LIFETIME_MS = 365 * 24 * 3600_000;

/**
 * Known devices (a "device cookie"): a successful password sign-in leaves the browser a cookie sealed
 * under `SECRET_KEY` (AES-GCM) naming the username; a later sign-in of that username carrying it skips
 * the username's back-off (`SignInThrottle`), so that an attacker failing on purpose cannot keep the
 * real user out. It proves a past sign-in, nothing more: the password is still checked.
 */
@Injectable()
export class DeviceCookie {
  constructor(
    private readonly box: SecretBox,
    private readonly urls: ExternalUrls,
    private readonly clock: Clock,
  ) {}

  /** Marks the browser as having signed in as `username`. */
  issue(response: Response, username: string): void {
    const sealed = this.box.encrypt(
      JSON.stringify({ username: username.toLowerCase(), expires: this.clock.now() + LIFETIME_MS }),
      PURPOSE,
    );
    const request = response.req;
    response.cookie(DEVICE_COOKIE, sealed, {
      httpOnly: true,
      sameSite: 'strict',
      secure: this.urls.secure(request),
      // Sent only where a password is typed (sign-in, password change, SSO link).
      path: this.urls.cookiePath(request, '/api/auth'),
      maxAge: LIFETIME_MS,
    });
  }

  /** Whether this browser signed in as `username` before. */
  knows(request: Request, username: string): boolean {
    const raw: unknown = request.cookies?.[DEVICE_COOKIE];
    if (typeof raw !== 'string' || raw.length > 1024) return false;
    try {
      const value = JSON.parse(this.box.decrypt(raw, PURPOSE)) as { username?: unknown; expires?: unknown };
      return (
        value.username === username.toLowerCase() &&
        typeof value.expires === 'number' &&
        value.expires > this.clock.now()
      );
    } catch {
      return false;
    }
  }
}
