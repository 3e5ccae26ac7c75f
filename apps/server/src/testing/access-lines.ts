/** One access line of the gateway, as a test reads it. */
export interface AccessLine {
  level: number;
  status: number | 'aborted';
  responseTime: number;
  proxy: { outcome: string; method?: string; path?: string; upstreamMs?: number } & Record<string, unknown>;
}

/** The gateway's access lines among the log lines captured so far. */
export function accessLines(logs: string[]): AccessLine[] {
  return logs
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.includes('"msg":"proxy request"'))
    .map((line) => JSON.parse(line) as AccessLine);
}

/**
 * The access lines once `ready` holds, or after about 5 s (a line is written when its response closes,
 * after the answer).
 */
export async function accessLinesWhen(logs: string[], ready: (lines: AccessLine[]) => boolean): Promise<AccessLine[]> {
  for (let attempt = 0; attempt < 500 && !ready(accessLines(logs)); attempt += 1)
    await new Promise((resolve) => setTimeout(resolve, 10));
  return accessLines(logs);
}
