import { BadRequestException, CallHandler, ExecutionContext } from '@nestjs/common';
import { of } from 'rxjs';
import { RawOverridesCheck } from './raw-overrides.interceptor';

describe(RawOverridesCheck.name, () => {
  const check = new RawOverridesCheck();
  const contextOf = (body: unknown) =>
    ({ switchToHttp: () => ({ getRequest: () => ({ body }) }) }) as unknown as ExecutionContext;
  const next: CallHandler = { handle: () => of('handled') };

  const refusal = (body: unknown): unknown => {
    try {
      check.intercept(contextOf(body), next);
    } catch (error) {
      return error;
    }
    return undefined;
  };

  it('refuses the own __proto__ key JSON.parse creates, naming it', () => {
    const error = refusal(JSON.parse('{"overrides":{"__proto__":["get"]},"active":true}'));
    expect(error).toBeInstanceOf(BadRequestException);
    expect((error as BadRequestException).getResponse()).toMatchObject({
      message: ['overrides: "__proto__" is not an API path (absolute, segments literal or {param}, no query)'],
    });
  });

  it('lets a valid map through, and leaves a body without a map to the validation pipe', () => {
    for (const body of [{ overrides: { '/api/v3/movie/{id}': ['get'] }, active: true }, {}, null, { overrides: 'x' }])
      expect(check.intercept(contextOf(body), next)).toBeDefined();
  });
});
