/** `POST /api/auth/sign-in` body. */
export interface SignInRequest {
  username: string;
  password: string;
}

/** `POST /api/auth/sign-in` and `GET /api/auth/session` response. */
export interface SessionResponse {
  username: string;
}
