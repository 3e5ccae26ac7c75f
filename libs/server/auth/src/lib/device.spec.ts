import { describeDevice } from './device';

describe(describeDevice.name, () => {
  it('names the browser and its system', () => {
    expect(describeDevice('Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0')).toBe(
      'Firefox 140 on Linux',
    );
    expect(
      describeDevice(
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
      ),
    ).toMatch(/^Safari 18 on macOS/);
  });

  it('keeps an unknown agent short, and says nothing without one', () => {
    expect(describeDevice('curl/8.10.1')).toBe('curl/8.10.1');
    expect(describeDevice(null)).toBeNull();
    expect(describeDevice('x'.repeat(300))?.length).toBeLessThanOrEqual(64);
  });
});
