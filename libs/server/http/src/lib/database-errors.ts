const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
]);
const UNAVAILABLE_NAMES = new Set([
  'CannotExecuteNotConnectedError',
  'ConnectionIsNotSetError',
  'CannotGetEntityManagerNotConnectedError',
]);
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'connection is not open',
  'Cannot use a pool after calling end',
  'DataSource is not initialized',
  'Driver not Connected',
];

/** Whether an error means that the database cannot be reached (the admin API answers 503). */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 4; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return true;
    if (UNAVAILABLE_NAMES.has(current.name)) return true;
    if (UNAVAILABLE_MESSAGES.some((m) => current instanceof Error && current.message.includes(m))) return true;
    current =
      (current as { driverError?: unknown; cause?: unknown }).driverError ?? (current as { cause?: unknown }).cause;
  }
  return false;
}

/** PostgreSQL's unique_violation. */
export function isUniqueViolation(error: unknown): boolean {
  const driverError = (error as { driverError?: { code?: unknown } } | undefined)?.driverError;
  return (driverError?.code ?? (error as { code?: unknown } | undefined)?.code) === '23505';
}
