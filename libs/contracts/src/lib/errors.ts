/** Every admin API error body. `message` names the field and the reason for validation errors. */
export interface ApiError {
  statusCode: number;
  error: string;
  message: string | string[];
}

/** Errors on the proxy route (`application/problem+json`, RFC 9457). */
export interface ProblemDetails {
  type: string;
  title: string;
  status: number;
  detail: string;
}
