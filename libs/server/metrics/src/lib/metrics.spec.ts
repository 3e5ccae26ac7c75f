import { Metrics } from './metrics';

/** The samples of one metric in the text format, as `labels value` lines (the labels as written). */
async function samples(metrics: Metrics, name: string): Promise<string[]> {
  const text = await metrics.text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`))
    .map((line) => line.slice(name.length));
}

describe('ProxyMeter', () => {
  it('counts each method, outcome and status apart, however the calls alternate', async () => {
    const metrics = new Metrics('test');
    const meter = metrics.proxyMeter('notifiarr', 'sonarr');
    // Each of method, outcome and status changes alone from one call to the next somewhere.
    const calls = [
      ['GET', 'forwarded', 200],
      ['GET', 'forwarded', 200],
      ['POST', 'forwarded', 200],
      ['GET', 'forwarded', 200],
      ['GET', 'forwarded', 404],
      ['GET', 'forbidden', 404],
      ['GET', 'forwarded', 200],
      ['GET', 'learned', 200],
    ] as const;
    for (const [method, outcome, code] of calls) meter.record(method, outcome, code, 0.02, -1, 10, 100);
    expect(await samples(metrics, 'arrbiter_proxy_requests_total')).toEqual([
      '{app="notifiarr",service="sonarr",method="GET",outcome="forwarded",code="200"} 4',
      '{app="notifiarr",service="sonarr",method="POST",outcome="forwarded",code="200"} 1',
      '{app="notifiarr",service="sonarr",method="GET",outcome="forwarded",code="404"} 1',
      '{app="notifiarr",service="sonarr",method="GET",outcome="forbidden",code="404"} 1',
      '{app="notifiarr",service="sonarr",method="GET",outcome="learned",code="200"} 1',
    ]);
    expect(await samples(metrics, 'arrbiter_proxy_request_duration_seconds_count')).toEqual([
      '{service="sonarr",outcome="forwarded"} 6',
      '{service="sonarr",outcome="forbidden"} 1',
      '{service="sonarr",outcome="learned"} 1',
    ]);
    expect(await samples(metrics, 'arrbiter_proxy_bytes_total')).toEqual([
      '{service="sonarr",direction="in"} 80',
      '{service="sonarr",direction="out"} 800',
    ]);
  });
});
