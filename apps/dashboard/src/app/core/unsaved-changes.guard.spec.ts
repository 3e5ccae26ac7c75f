import { TestBed } from '@angular/core/testing';
import { ActivatedRouteSnapshot, RouterStateSnapshot } from '@angular/router';
import { HasUnsavedChanges, unsavedChangesGuard } from './unsaved-changes.guard';
import { ConfirmService } from '@arrbiter/dashboard/ui';

describe('unsavedChangesGuard', () => {
  const run = (component: HasUnsavedChanges) =>
    TestBed.runInInjectionContext(() =>
      unsavedChangesGuard(
        component,
        {} as ActivatedRouteSnapshot,
        {} as RouterStateSnapshot,
        {} as RouterStateSnapshot,
      ),
    );

  it('lets a clean page go without asking', () => {
    expect(run({ hasUnsavedChanges: () => false })).toBe(true);
    expect(TestBed.inject(ConfirmService).pending()).toBeNull();
  });

  it('asks before leaving a draft, and stays when the answer is no', async () => {
    const confirm = TestBed.inject(ConfirmService);
    const stay = run({ hasUnsavedChanges: () => true }) as Promise<boolean>;
    expect(confirm.pending()?.title).toBe('Discard unsaved changes?');
    confirm.answer(false);
    await expect(stay).resolves.toBe(false);

    const leave = run({ hasUnsavedChanges: () => true }) as Promise<boolean>;
    confirm.answer(true);
    await expect(leave).resolves.toBe(true);
  });
});
