import { HttpClient, HttpErrorResponse } from '@angular/common/http';
import { computed, inject, Injectable, signal } from '@angular/core';
import type { SessionResponse, SignInRequest } from '@arrbiter/contracts';
import { firstValueFrom } from 'rxjs';

/** The signed-in administrator, known once the session was asked for. */
@Injectable({ providedIn: 'root' })
export class AuthService {
  private readonly http = inject(HttpClient);
  private readonly user = signal<string | null | undefined>(undefined);

  /** The administrator's name; null when signed out; undefined until the session is known. */
  readonly username = this.user.asReadonly();
  readonly signedIn = computed(() => typeof this.user() === 'string');

  /** Asks the server once (or again with `refresh`) whether the browser has a session. */
  async ensureSession(refresh = false): Promise<boolean> {
    if (this.user() !== undefined && !refresh) return this.signedIn();
    try {
      const session = await firstValueFrom(this.http.get<SessionResponse>('/api/auth/session'));
      this.user.set(session.username);
    } catch (error) {
      if (!(error instanceof HttpErrorResponse) || error.status !== 401) throw error;
      this.user.set(null);
    }
    return this.signedIn();
  }

  async signIn(credentials: SignInRequest): Promise<void> {
    const session = await firstValueFrom(this.http.post<SessionResponse>('/api/auth/sign-in', credentials));
    this.user.set(session.username);
  }

  async signOut(): Promise<void> {
    try {
      await firstValueFrom(this.http.post<void>('/api/auth/sign-out', {}));
    } finally {
      this.user.set(null);
    }
  }

  /** The session ended on the server (expired or revoked). */
  markSignedOut(): void {
    this.user.set(null);
  }
}
