import { isRoutePath } from '@arrbiter/shared/allowlist-rules';
import {
  isGrantableShape,
  isWholeSample,
  SAMPLE_MAX_LENGTH,
  SHAPE_MAX_LENGTH,
  samplePath,
  unknownPathShape,
} from './unknown-path-shape';

describe(unknownPathShape.name, () => {
  it.each([
    ['/api/v3/thing/123', '/api/v3/thing/{id}'],
    ['/api/v3/Thing/42/Detail', '/api/v3/thing/{id}/detail'],
    ['/api/v3/thing/3f2b1c9e-8d7a-4b6c-9e5f-1a2b3c4d5e6f', '/api/v3/thing/{id}'],
    ['/api/v3/thing/0123abcd', '/api/v3/thing/{id}'],
    ['/api/v3/thing/deadbeef', '/api/v3/thing/deadbeef'],
    ['/api/v3/thing/tt0111161', '/api/v3/thing/tt0111161'],
    ['/api/v3/thing/Ab3dEf6hIj9kLm2nOp', '/api/v3/thing/{id}'],
    [`/api/v3/thing/${'a'.repeat(33)}`, '/api/v3/thing/{id}'],
    ['/api/v3/thing/{x}', '/api/v3/thing/{id}'],
    ['/api/v3/a/b/c/d', '/api/v3/a/b/c/d'],
    ['/api/v3/a/b/c/d/e/f', '/api/v3/a/b/c/d/…'],
    ['/ping', '/ping'],
    ['/', '/'],
  ])('keys %s by %s', (path, shape) => {
    expect(unknownPathShape(path)).toBe(shape);
  });

  it('answers a short shape whatever the path, and a valid allowlist path unless deeper segments were folded', () => {
    const long = `/${Array.from({ length: 50 }, (_, i) => `segment-${'x'.repeat(i)}`).join('/')}`;
    const shape = unknownPathShape(long);
    expect(shape.length).toBeLessThanOrEqual(SHAPE_MAX_LENGTH);
    expect(isGrantableShape(shape)).toBe(false);
    const short = unknownPathShape(`/api/v3/custom/${'9'.repeat(2000)}/x`);
    expect(short).toBe('/api/v3/custom/{id}/x');
    expect(isGrantableShape(short)).toBe(true);
    expect(isRoutePath(short)).toBe(true);
  });
});

describe(samplePath.name, () => {
  it('keeps a path up to 512 characters and cuts a longer one, marked so that it is never granted as a path', () => {
    const fits = `/${'a'.repeat(SAMPLE_MAX_LENGTH - 1)}`;
    expect(samplePath(fits)).toBe(fits);
    expect(isWholeSample(samplePath(fits))).toBe(true);
    const cut = samplePath(`${fits}b`);
    expect(cut).toHaveLength(SAMPLE_MAX_LENGTH);
    expect(isWholeSample(cut)).toBe(false);
  });
});
