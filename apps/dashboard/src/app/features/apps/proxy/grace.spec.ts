import { describeMinutes, graceMinutes, previousKeyUse } from './grace';

describe('graceMinutes', () => {
  it('gives the minutes of a preset', () => {
    expect([
      graceMinutes('none', ''),
      graceMinutes('60', ''),
      graceMinutes('1440', 'x'),
      graceMinutes('10080', ''),
    ]).toEqual([0, 60, 1440, 10080]);
  });

  it('takes a custom whole number of minutes from 1 to 10080, and nothing else', () => {
    expect([graceMinutes('custom', '1'), graceMinutes('custom', '10080'), graceMinutes('custom', ' 90 ')]).toEqual([
      1, 10080, 90,
    ]);
    for (const bad of ['', '0', '10081', '1.5', '-5', 'ten', '1e9'])
      expect([bad, graceMinutes('custom', bad)]).toEqual([bad, null]);
  });
});

describe('previousKeyUse', () => {
  const format = (iso: string) => `at(${iso})`;

  it('says how often and when the old key was last used', () => {
    expect(previousKeyUse({ validUntil: 'v', uses: 1, lastUsedAt: 't' }, format)).toBe('used 1 time, last at at(t)');
    expect(previousKeyUse({ validUntil: 'v', uses: 12, lastUsedAt: 't' }, format)).toBe('used 12 times, last at at(t)');
  });

  it('says when it has not been used', () => {
    expect(previousKeyUse({ validUntil: 'v', uses: 0, lastUsedAt: null }, format)).toBe('not used since the rotation');
  });
});

describe('describeMinutes', () => {
  it('says a grace period in days, hours and minutes', () => {
    expect([1, 60, 90, 1440, 1441, 10080].map((minutes) => describeMinutes(minutes))).toEqual([
      '1 minute',
      '1 hour',
      '1 hour 30 minutes',
      '1 day',
      '1 day 1 minute',
      '7 days',
    ]);
  });
});
