import { Injectable } from '@nestjs/common';

/**
 * The time, as the server sees it: deadlines (learning mode) and audit timestamps read it here, so
 * that tests can move it (`TestClock`) instead of waiting.
 */
@Injectable()
export class Clock {
  private lastStamp = 0;

  now(): number {
    return Date.now();
  }

  date(): Date {
    return new Date(this.now());
  }

  /**
   * The time for a record that lists sort by (revisions, recent changes): later than every earlier
   * stamp of this process, so that two records of one millisecond keep their order.
   */
  stamp(): Date {
    this.lastStamp = Math.max(this.now(), this.lastStamp + 1);
    return new Date(this.lastStamp);
  }
}

/** A clock that only moves when told to. */
export class TestClock extends Clock {
  private offsetMs = 0;

  override now(): number {
    return Date.now() + this.offsetMs;
  }

  advance(ms: number): void {
    this.offsetMs += ms;
  }
}

/** A clock that stands still until told to move (unit tests that count milliseconds). */
export class ManualClock extends Clock {
  constructor(private at = Date.UTC(2026, 0, 1)) {
    super();
  }

  override now(): number {
    return this.at;
  }

  advance(ms: number): void {
    this.at += ms;
  }
}
