import { HttpErrorResponse } from '@angular/common/http';
import { describeError, errorLines } from './api-error';

describe('describeError', () => {
  it('turns a failed admin call into a sentence for a person', () => {
    expect(describeError(new HttpErrorResponse({ status: 0 }))).toMatch(/cannot be reached/);
    expect(describeError(new HttpErrorResponse({ status: 400, error: { message: ['a', 'b'] } }))).toBe('a. b');
    expect(describeError(new HttpErrorResponse({ status: 500, statusText: 'Server Error' }))).toBe(
      'The server answered 500 Server Error',
    );
    expect(describeError(new Error('boom'))).toBe('boom');
    expect(describeError('?')).toBe('Something went wrong.');
    expect(errorLines(new HttpErrorResponse({ status: 400, error: { message: ['a', 'b'] } }))).toEqual(['a', 'b']);
  });
});
