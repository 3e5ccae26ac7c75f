import { HttpClient, HttpErrorResponse } from '@angular/common/http';
import { computed, inject, Injectable, signal } from '@angular/core';
import type { AdminRole, SessionResponse, SignInMethodsResponse, SignInRequest } from '@arrbiter/contracts';
import { firstValueFrom } from 'rxjs';

const RANK: Record<AdminRole, number> = { viewer: 1, editor: 2, owner: 3 };

/** The signed-in administrator and their role, known once the session was asked for. */
@Injectable({ providedIn: 'root' })
export class AuthService {
  private readonly http = inject(HttpClient);
  private readonly session = signal<SessionResponse | null | undefined>(undefined);

  /** The administrator's name; null when signed out; undefined until the session is known. */
  readonly username = computed(() => {
    const session = this.session();
    return session === undefined ? undefined : (session?.username ?? null);
  });
  /** The administrator's role; null when signed out or not known yet. */
  readonly role = computed(() => this.session()?.role ?? null);
  readonly signedIn = computed(() => !!this.session());
  /** Whether the server runs with `PUBLIC_URL` set (true until the session is known). */
  readonly publicUrlSet = computed(() => this.session()?.publicUrlSet ?? true);

  /** Whether the signed-in administrator's role is `required` or above (what the server will allow). */
  can(required: AdminRole): boolean {
    const role = this.role();
    return role !== null && RANK[role] >= RANK[required];
  }

  /** Asks the server once (or again with `refresh`) whether the browser has a session. */
  async ensureSession(refresh = false): Promise<boolean> {
    if (this.session() !== undefined && !refresh) return this.signedIn();
    try {
      this.session.set(await firstValueFrom(this.http.get<SessionResponse>('/api/auth/session')));
    } catch (error) {
      if (!(error instanceof HttpErrorResponse) || error.status !== 401) throw error;
      this.session.set(null);
    }
    return this.signedIn();
  }

  /** The ways in the sign-in page offers (password, single sign-on). */
  methods(): Promise<SignInMethodsResponse> {
    return firstValueFrom(this.http.get<SignInMethodsResponse>('/api/auth/methods'));
  }

  async signIn(credentials: SignInRequest): Promise<void> {
    this.session.set(await firstValueFrom(this.http.post<SessionResponse>('/api/auth/sign-in', credentials)));
  }

  async signOut(): Promise<void> {
    try {
      await firstValueFrom(this.http.post<void>('/api/auth/sign-out', {}));
    } finally {
      this.session.set(null);
    }
  }

  /** The session ended on the server (expired or revoked). */
  markSignedOut(): void {
    this.session.set(null);
  }
}
