import { HttpClient } from '@angular/common/http';
import { computed, inject, Injectable, signal } from '@angular/core';
import type {
  AdminRole,
  SessionResponse,
  SessionStateResponse,
  SignInMethodsResponse,
  SignInRequest,
} from '@arrbiter/contracts';
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
  /** Whether the administrator still signs in with a generated password (the dashboard asks to choose one). */
  readonly passwordGenerated = computed(() => this.session()?.passwordGenerated ?? false);
  /** The generated password just typed at sign-in, kept in memory only until one is chosen or kept. */
  private generatedPassword: string | undefined;

  /** Whether the signed-in administrator's role is `required` or above (what the server will allow). */
  can(required: AdminRole): boolean {
    const role = this.role();
    return role !== null && RANK[role] >= RANK[required];
  }

  /** Asks the server once (or again with `refresh`) whether the browser has a session. */
  async ensureSession(refresh = false): Promise<boolean> {
    if (this.session() !== undefined && !refresh) return this.signedIn();
    // The state, not the session: signed out is a 200 there, not a 401 in the browser's console.
    const state = await firstValueFrom(this.http.get<SessionStateResponse>('/api/auth/state'));
    this.session.set(state.signedIn ? state.session : null);
    return this.signedIn();
  }

  /** The ways in the sign-in page offers (password, single sign-on). */
  methods(): Promise<SignInMethodsResponse> {
    return firstValueFrom(this.http.get<SignInMethodsResponse>('/api/auth/methods'));
  }

  async signIn(credentials: SignInRequest): Promise<void> {
    const session = await firstValueFrom(this.http.post<SessionResponse>('/api/auth/sign-in', credentials));
    this.generatedPassword = session.passwordGenerated ? credentials.password : undefined;
    this.session.set(session);
  }

  /** The generated password typed at sign-in in this tab, if any (so the step need not ask for it again). */
  signInPassword(): string | undefined {
    return this.generatedPassword;
  }

  /** The administrator chose their own password, or (an owner) kept the generated one. */
  passwordSettled(): void {
    this.generatedPassword = undefined;
    this.session.update((session) => (session ? { ...session, passwordGenerated: false } : session));
  }

  async signOut(): Promise<void> {
    try {
      await firstValueFrom(this.http.post<void>('/api/auth/sign-out', {}));
    } finally {
      this.generatedPassword = undefined;
      this.session.set(null);
    }
  }

  /** The session ended on the server (expired or revoked). */
  markSignedOut(): void {
    this.generatedPassword = undefined;
    this.session.set(null);
  }
}
