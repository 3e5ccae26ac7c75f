import type { RenderedMessage } from './messages';
import { requestTarget, safeErrorText } from './webhook-url';

/** How long one attempt may take, answer included. */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Redirects followed, and only within the webhook's origin. */
const MAX_REDIRECTS = 3;
/** What is read of an error answer (the rest is never read). */
const ERROR_BODY_BYTES = 1024;
const USER_AGENT = 'Arrbiter-Webhook/1';

/** What one attempt came to. */
export interface AttemptOutcome {
  ok: boolean;
  httpStatus?: number;
  /** Why it failed: one short line, never the URL or a part of it. */
  error?: string;
  /** Whether trying again later may succeed (no answer, a time-out, 408, 425, 429, 5xx). */
  retryable: boolean;
  /** The receiver's `Retry-After`, in milliseconds. */
  retryAfterMs?: number;
}

function networkError(error: unknown, timeoutMs: number): string {
  const name = (error as Error).name;
  if (name === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`;
  if (name === 'AbortError') return 'not finished: Arrbiter was stopping';
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ? `cannot connect (${cause.code})` : (cause?.message ?? (error as Error).message);
}

function retryAfterMs(value: string | null, now: number): number | undefined {
  if (!value) return undefined;
  if (/^\d{1,7}$/.test(value.trim())) return Number(value.trim()) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** The start of a body (at most `max` bytes), then the rest is left unread. */
async function readStart(response: Response, max: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < max) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // What arrived is enough for an error line.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  // A character cut at the end is left out (it would read as U+FFFD, hiding what it ends).
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, max), { stream: true });
}

const retryableStatus = (status: number) => status === 408 || status === 425 || status === 429 || status >= 500;

/**
 * POSTs a message to a webhook once: a time-out on the whole exchange, redirects followed only within
 * the webhook's origin (scheme, host and port: another port or scheme is another origin, which would
 * get the Authorization and the body), credentials in the URL sent as Basic authorization, and of an
 * error answer only its first KiB read, for a short error line that never shows the URL or a secret.
 */
export async function sendWebhook(
  webhookUrl: string,
  message: RenderedMessage,
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<AttemptOutcome> {
  const target = requestTarget(webhookUrl);
  const first = new URL(target.url);
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const signals = [AbortSignal.timeout(timeoutMs)];
  if (options.signal) signals.push(options.signal);
  const signal = AbortSignal.any(signals);
  const headers: Record<string, string> = { ...message.headers, 'User-Agent': USER_AGENT };
  if (target.authorization) headers['Authorization'] = target.authorization;
  /** `error`: Arrbiter's own words, then `detail`: what the receiver or the network said, masked. */
  const fail = (outcome: Omit<AttemptOutcome, 'ok' | 'error'>, error: string, detail = ''): AttemptOutcome => ({
    ok: false,
    ...outcome,
    error: safeErrorText(detail, webhookUrl, error),
  });

  let url = target.url;
  for (let hop = 0; ; hop += 1) {
    let response: Response;
    try {
      response = await fetch(url, { method: 'POST', headers, body: message.body, redirect: 'manual', signal });
    } catch (error) {
      return fail({ retryable: true }, '', networkError(error, timeoutMs));
    }
    const status = response.status;
    if (status >= 300 && status < 400) {
      await response.body?.cancel().catch(() => undefined);
      let next: URL | undefined;
      try {
        next = new URL(response.headers.get('location') ?? '', url);
      } catch {
        next = undefined;
      }
      if (!next || next.origin !== first.origin)
        return fail(
          { retryable: false, httpStatus: status },
          `answered ${status}, a redirect to another origin (scheme, host or port): not followed`,
        );
      if (hop >= MAX_REDIRECTS) return fail({ retryable: false, httpStatus: status }, 'too many redirects');
      next.username = '';
      next.password = '';
      url = next.href;
      continue;
    }
    if (status >= 200 && status < 300) {
      await response.body?.cancel().catch(() => undefined);
      return { ok: true, httpStatus: status, retryable: false };
    }
    let text = '';
    try {
      text = await readStart(response, ERROR_BODY_BYTES);
    } catch {
      text = '';
    }
    return fail(
      {
        retryable: retryableStatus(status),
        httpStatus: status,
        retryAfterMs: retryAfterMs(response.headers.get('retry-after'), Date.now()),
      },
      `HTTP ${status}${text.trim() ? ': ' : ''}`,
      text.trim() ? text : '',
    );
  }
}
