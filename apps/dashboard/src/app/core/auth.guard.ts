import type { AdminRole } from '@arrbiter/contracts';
import { inject } from '@angular/core';
import { CanActivateFn, Router } from '@angular/router';
import { AuthService } from './auth.service';

/** Where an administrator who signs in with a generated password chooses their own. */
export const CHOOSE_PASSWORD_PATH = '/choose-password';

/**
 * Lets a signed-in administrator through; sends anyone else to sign in, then back here. One who still
 * signs in with a generated password goes to choose their own first, then back here.
 */
export const authGuard: CanActivateFn = async (_route, state) => {
  const auth = inject(AuthService);
  const router = inject(Router);
  if (!(await auth.ensureSession())) return router.createUrlTree(['/sign-in'], { queryParams: { next: state.url } });
  if (auth.passwordGenerated())
    return router.createUrlTree([CHOOSE_PASSWORD_PATH], { queryParams: { next: state.url } });
  return true;
};

/** The "choose your own password" step: only while the administrator signs in with a generated password. */
export const choosePasswordGuard: CanActivateFn = async (_route, state) => {
  const auth = inject(AuthService);
  const router = inject(Router);
  if (!(await auth.ensureSession())) return router.createUrlTree(['/sign-in'], { queryParams: { next: state.url } });
  return auth.passwordGenerated() ? true : router.createUrlTree(['/']);
};

/** Keeps a signed-in administrator off the sign-in page. */
export const signedOutGuard: CanActivateFn = async () => {
  const auth = inject(AuthService);
  const router = inject(Router);
  return (await auth.ensureSession()) ? router.createUrlTree(['/']) : true;
};

/** Lets only administrators of `role` or above onto a page (the others go home). */
export function roleGuard(role: AdminRole): CanActivateFn {
  return async () => {
    const auth = inject(AuthService);
    const router = inject(Router);
    if (!(await auth.ensureSession())) return router.createUrlTree(['/sign-in']);
    return auth.can(role) ? true : router.createUrlTree(['/home']);
  };
}
