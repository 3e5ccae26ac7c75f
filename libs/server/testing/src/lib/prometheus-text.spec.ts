import { parsePrometheusText, sumOf } from './prometheus-text';

const GOOD = `# HELP requests_total Requests
# TYPE requests_total counter
requests_total{app="a",code="200"} 3
requests_total{app="b\\\\c\\"d\\n",code="403"} 1
# HELP latency_seconds Latency
# TYPE latency_seconds histogram
latency_seconds_bucket{service="s",le="0.1"} 1
latency_seconds_bucket{service="s",le="1"} 2
latency_seconds_bucket{service="s",le="+Inf"} 3
latency_seconds_sum{service="s"} 4.5
latency_seconds_count{service="s"} 3
up 1
`;

describe(parsePrometheusText.name, () => {
  it('reads families, labels with escapes, and histograms', () => {
    const families = parsePrometheusText(GOOD.replace('up 1\n', '# TYPE up gauge\nup 1\n'));
    expect(families.get('requests_total')?.samples[1].labels['app']).toBe('b\\c"d\n');
    expect(sumOf(families, 'requests_total')).toBe(4);
    expect(sumOf(families, 'requests_total', { code: '200' })).toBe(3);
    expect(sumOf(families, 'latency_seconds', {}, 'latency_seconds_count')).toBe(3);
  });

  it.each([
    ['a sample without its TYPE', GOOD],
    ['no final newline', '# TYPE x counter\nx 1'],
    ['a bad escape', '# TYPE x counter\nx{a="\\q"} 1\n'],
    ['a repeated label', '# TYPE x counter\nx{a="1",a="2"} 1\n'],
    ['a bad value', '# TYPE x counter\nx 1,5\n'],
    ['TYPE after samples', '# TYPE x counter\nx 1\n# TYPE x counter\n'],
    [
      'buckets that are not cumulative',
      '# TYPE h histogram\nh_bucket{le="1"} 2\nh_bucket{le="+Inf"} 1\nh_count 1\nh_sum 1\n',
    ],
    ['a +Inf bucket unlike _count', '# TYPE h histogram\nh_bucket{le="+Inf"} 2\nh_count 1\nh_sum 1\n'],
  ])('refuses %s', (_what, text) => {
    expect(() => parsePrometheusText(text)).toThrow(/Prometheus text format|buckets|\+Inf/);
  });
});
