import { inject } from '@angular/core';
import { CanDeactivateFn } from '@angular/router';
import { ConfirmService } from '@arrbiter/dashboard/ui';

/** A page that can hold an unsaved draft. */
export interface HasUnsavedChanges {
  hasUnsavedChanges(): boolean;
}

/** Asks before leaving a page with an unsaved draft. */
export const unsavedChangesGuard: CanDeactivateFn<HasUnsavedChanges> = (component) => {
  if (!component?.hasUnsavedChanges()) return true;
  return inject(ConfirmService).ask({
    title: 'Discard unsaved changes?',
    message: 'The draft has changes that are not saved. Leaving discards them.',
    confirmLabel: 'Discard and leave',
    danger: true,
  });
};
