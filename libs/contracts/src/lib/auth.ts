/** What an account may do: `owner` everything (accounts and settings too), `editor` all configuration, `viewer` read (no secrets). */
export type AdminRole = 'owner' | 'editor' | 'viewer';

/** Every role, from the most to the least powerful. */
export const ADMIN_ROLES: readonly AdminRole[] = ['owner', 'editor', 'viewer'];

/** `POST /api/auth/sign-in` body. */
export interface SignInRequest {
  username: string;
  password: string;
}

/**
 * `GET /api/auth/state`: whether the caller is signed in, always 200 (the dashboard asks it on every
 * load; `GET /api/auth/session` answers 401 when signed out, which browsers log as an error).
 */
export type SessionStateResponse = { signedIn: false } | { signedIn: true; session: SessionResponse };

/** `POST /api/auth/sign-in` and `GET /api/auth/session` response. */
export interface SessionResponse {
  username: string;
  role: AdminRole;
  /**
   * Whether `PUBLIC_URL` is set. Unset, the server works at any address it is opened at, but the
   * dashboard asks an admin to set it (proxy URLs shown, cookies' `Secure`, links in notifications).
   */
  publicUrlSet: boolean;
  /**
   * The account still signs in with a generated password (the first owner's, or one `reset-password`
   * or an owner made): the dashboard asks to choose one. Only an owner may keep it
   * (`POST /api/auth/password/keep` → 204, remembered); others must choose one first.
   */
  passwordGenerated: boolean;
}

/** `GET /api/auth/methods` (public): the ways in that the sign-in page offers. */
export interface SignInMethodsResponse {
  /** Username and password sign-in (`PASSWORD_SIGN_IN`). */
  password: boolean;
  /** Single sign-on through the OpenID provider (`OIDC_ISSUER`), or null when none is configured. */
  sso: { label: string } | null;
}

/** `PUT /api/auth/password` body. */
export interface ChangePasswordRequest {
  currentPassword: string;
  newPassword: string;
}

/** `POST /api/auth/oidc/link` body: the caller's password again, to link their account to single sign-on. */
export interface SsoLinkRequest {
  password: string;
}

/** `POST /api/auth/oidc/link` response: where the browser goes to sign in at the provider. */
export interface SsoLinkResponse {
  redirectTo: string;
}

/** One of the caller's sessions (`GET /api/auth/sessions`). */
export interface AuthSessionDto {
  id: string;
  /** The browser and system, from its User-Agent ("Firefox 140 on Linux"), or null when unknown. */
  device: string | null;
  /** The client address it was last seen from. */
  address: string | null;
  createdAt: string;
  lastSeen: string;
  /** The session this request was made with. */
  current: boolean;
}

/** An administrator account (`GET /api/admin/v1/admins`). */
export interface AdminAccountDto {
  id: string;
  username: string;
  role: AdminRole;
  /** Whether the account can sign in with a password (SSO and forward-auth accounts may have none). */
  hasPassword: boolean;
  /** Whether the account is linked to a single sign-on identity. */
  sso: boolean;
  createdAt: string;
}

/** `POST /api/admin/v1/admins` body. */
export interface CreateAdminRequest {
  username: string;
  /** Optional: an account without one signs in through SSO or forward-auth only. */
  password?: string;
  role: AdminRole;
}

/** `PATCH /api/admin/v1/admins/:id` body. */
export interface UpdateAdminRequest {
  password?: string;
  role?: AdminRole;
}

/** An API token (`GET /api/admin/v1/tokens`); the token itself is shown once, at creation. */
export interface ApiTokenDto {
  id: string;
  name: string;
  role: AdminRole;
  /** The account that created it (whose role caps the token's). */
  createdBy: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
}

/** `POST /api/admin/v1/tokens` body. */
export interface CreateTokenRequest {
  name: string;
  role: AdminRole;
  /** ISO 8601 date-time in the future; omitted or null: no expiry. */
  expiresAt?: string | null;
}

/** `POST /api/admin/v1/tokens` response: the only time the token is shown. */
export interface CreatedTokenResponse {
  id: string;
  /** `arb_` then 43 base64url characters; send it as `Authorization: Bearer <token>`. */
  token: string;
}
