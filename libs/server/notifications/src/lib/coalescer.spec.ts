import { ManualClock } from '@arrbiter/server/config';
import { Coalescer } from './coalescer';

const HOUR = 3_600_000;

describe(Coalescer.name, () => {
  it('lets one event per subject through per window, and counts the ones it left out', () => {
    const clock = new ManualClock();
    const coalescer = new Coalescer(clock);
    expect(coalescer.admit('proxy-1|get|/api/v3/movie/{id}', HOUR)).toEqual({ send: true, suppressed: 0 });
    for (let i = 0; i < 50; i += 1) expect(coalescer.admit('proxy-1|get|/api/v3/movie/{id}', HOUR).send).toBe(false);
    // Another route, another proxy: their own windows.
    expect(coalescer.admit('proxy-1|get|/api/v3/calendar', HOUR).send).toBe(true);
    expect(coalescer.admit('proxy-2|get|/api/v3/movie/{id}', HOUR).send).toBe(true);
    clock.advance(HOUR - 1);
    expect(coalescer.admit('proxy-1|get|/api/v3/movie/{id}', HOUR).send).toBe(false);
    clock.advance(1);
    // The next one after the hour goes, carrying how many were left out.
    expect(coalescer.admit('proxy-1|get|/api/v3/movie/{id}', HOUR)).toEqual({ send: true, suppressed: 51 });
    expect(coalescer.admit('proxy-1|get|/api/v3/movie/{id}', HOUR)).toEqual({ send: false, suppressed: 1 });
  });

  it('remembers a bounded number of subjects, forgetting expired ones first, then the oldest', () => {
    const clock = new ManualClock();
    const coalescer = new Coalescer(clock, 3);
    coalescer.admit('short', 1000);
    coalescer.admit('a', HOUR);
    coalescer.admit('b', HOUR);
    clock.advance(1000);
    coalescer.admit('c', HOUR);
    expect(coalescer.size).toBe(3);
    // 'short' expired and went first: a and b are still coalesced.
    expect(coalescer.admit('a', HOUR).send).toBe(false);
    expect(coalescer.admit('b', HOUR).send).toBe(false);
    coalescer.admit('d', HOUR);
    expect(coalescer.size).toBe(3);
    // The oldest ('a') was forgotten to make room: its next event is sent.
    expect(coalescer.admit('a', HOUR).send).toBe(true);
  });
});
