import type { Clock } from '@arrbiter/server/config';

/** Subjects remembered at most; beyond that the oldest are forgotten (they are then sent again). */
export const MAX_COALESCED_SUBJECTS = 10_000;

/**
 * One message per subject per window: the first event about a subject (one route of one proxy) is
 * sent, the next ones within the window are counted and left out, and the count rides on the next
 * message sent about it. In memory, per replica.
 */
export class Coalescer {
  private readonly subjects = new Map<string, { until: number; suppressed: number }>();

  constructor(
    private readonly clock: Clock,
    private readonly maxSubjects = MAX_COALESCED_SUBJECTS,
  ) {}

  /** Whether an event about `key` is sent now, and how many were left out before it. */
  admit(key: string, windowMs: number): { send: boolean; suppressed: number } {
    const now = this.clock.now();
    const known = this.subjects.get(key);
    if (known && now < known.until) {
      known.suppressed += 1;
      return { send: false, suppressed: known.suppressed };
    }
    this.subjects.delete(key);
    if (this.subjects.size >= this.maxSubjects) this.forget(now);
    this.subjects.set(key, { until: now + windowMs, suppressed: 0 });
    return { send: true, suppressed: known?.suppressed ?? 0 };
  }

  get size(): number {
    return this.subjects.size;
  }

  /** Forgets the subjects whose window has passed, then the oldest ones until there is room. */
  private forget(now: number): void {
    for (const [key, subject] of this.subjects) if (subject.until <= now) this.subjects.delete(key);
    for (const key of this.subjects.keys()) {
      if (this.subjects.size < this.maxSubjects) break;
      this.subjects.delete(key);
    }
  }
}
