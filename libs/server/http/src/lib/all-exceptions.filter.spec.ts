import { ArgumentsHost, Logger, NotFoundException } from '@nestjs/common';
import { AllExceptionsFilter } from './all-exceptions.filter';

function host() {
  const response = {
    headersSent: false,
    statusCode: 0,
    body: undefined as unknown,
    status(code: number) {
      this.statusCode = code;
      return this;
    },
    json(body: unknown) {
      this.body = body;
      return this;
    },
    setHeader: jest.fn(),
    destroy: jest.fn(),
  };
  const argumentsHost = { switchToHttp: () => ({ getResponse: () => response }) } as unknown as ArgumentsHost;
  return { response, argumentsHost };
}

describe(AllExceptionsFilter.name, () => {
  let warn: jest.SpyInstance;
  let error: jest.SpyInstance;
  beforeEach(() => {
    warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
    error = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });
  afterEach(() => jest.restoreAllMocks());

  it('answers 503 while the database is away, with one warning line and no stack trace', () => {
    const { response, argumentsHost } = host();
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    new AllExceptionsFilter().catch(refused, argumentsHost);
    expect(response.statusCode).toBe(503);
    expect(error).not.toHaveBeenCalled();
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][0]).toBe(
      'Answered 503, the database is unavailable: connect ECONNREFUSED 127.0.0.1:5432',
    );
    expect(JSON.stringify(warn.mock.calls)).not.toContain(' at ');
  });

  it('logs an unexpected error with its stack and answers 500 without it', () => {
    const { response, argumentsHost } = host();
    new AllExceptionsFilter().catch(new TypeError('boom'), argumentsHost);
    expect(response.statusCode).toBe(500);
    expect(JSON.stringify(response.body)).not.toContain('boom');
    expect(error).toHaveBeenCalledTimes(1);
    expect(JSON.stringify(error.mock.calls[0][0])).toContain('TypeError: boom\\n    at ');
  });

  it('logs nothing for an HTTP exception', () => {
    const { response, argumentsHost } = host();
    new AllExceptionsFilter().catch(new NotFoundException('no such app'), argumentsHost);
    expect(response.statusCode).toBe(404);
    expect(warn).not.toHaveBeenCalled();
    expect(error).not.toHaveBeenCalled();
  });
});
