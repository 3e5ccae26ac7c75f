import { HttpErrorResponse } from '@angular/common/http';
import { busyAction } from './busy-action';

describe('busyAction', () => {
  it('is busy while the work runs and hands back its value', async () => {
    const action = busyAction();
    let finish!: (value: number) => void;
    const outcome = action.run(() => new Promise<number>((resolve) => (finish = resolve)));
    expect(action.busy()).toBe(true);
    finish(42);
    await expect(outcome).resolves.toEqual({ ok: true, value: 42 });
    expect(action.busy()).toBe(false);
    expect(action.error()).toBeNull();
  });

  it("keeps the server's message when the work fails, and clears it when the next call starts", async () => {
    const action = busyAction();
    const failure = new HttpErrorResponse({ status: 409, error: { message: 'That name is taken.' } });
    await expect(action.run(() => Promise.reject(failure))).resolves.toEqual({
      ok: false,
      error: 'That name is taken.',
    });
    expect(action.error()).toBe('That name is taken.');
    expect(action.busy()).toBe(false);

    let finish!: () => void;
    const next = action.run(() => new Promise<void>((resolve) => (finish = resolve)));
    expect(action.error()).toBeNull();
    finish();
    await next;
  });

  it('says a page’s own words when given them, and clear() forgets the error', async () => {
    const action = busyAction({ describe: () => 'Wrong username or password.' });
    await action.run(() => Promise.reject(new Error('401')));
    expect(action.error()).toBe('Wrong username or password.');
    action.clear();
    expect(action.error()).toBeNull();
  });

  it('says what a call did when it succeeds, and takes a notice from the page', async () => {
    const action = busyAction();
    await action.run(
      () => Promise.resolve('Movies'),
      (name) => `Saved ${name}.`,
    );
    expect(action.notice()).toEqual({ ok: true, text: 'Saved Movies.' });
    expect(action.error()).toBeNull();
    await action.run(() => Promise.resolve(1), 'Done.');
    expect(action.notice()).toEqual({ ok: true, text: 'Done.' });
    await action.run(() => Promise.reject(new Error('Refused.')), 'Done.');
    expect(action.notice()).toEqual({ ok: false, text: 'Refused.' });
    action.say({ ok: false, text: 'Enter a name.' });
    expect(action.error()).toBe('Enter a name.');
  });

  it('stays busy until the last of overlapping calls ends', async () => {
    const action = busyAction();
    let first!: () => void;
    let second!: () => void;
    const a = action.run(() => new Promise<void>((resolve) => (first = resolve)));
    const b = action.run(() => new Promise<void>((resolve) => (second = resolve)));
    first();
    await a;
    expect(action.busy()).toBe(true);
    second();
    await b;
    expect(action.busy()).toBe(false);
  });
});
