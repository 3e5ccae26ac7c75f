import { HttpErrorResponse, HttpInterceptorFn } from '@angular/common/http';
import { inject } from '@angular/core';
import { Router } from '@angular/router';
import { catchError, throwError } from 'rxjs';
import { AuthService } from './auth.service';

/** When an admin call answers 401 the session has ended: back to sign-in, then back where we were. */
export const sessionExpiryInterceptor: HttpInterceptorFn = (request, next) => {
  const auth = inject(AuthService);
  const router = inject(Router);
  return next(request).pipe(
    catchError((error: unknown) => {
      if (error instanceof HttpErrorResponse && error.status === 401 && request.url.startsWith('/api/admin/')) {
        auth.markSignedOut();
        void router.navigate(['/sign-in'], { queryParams: { next: router.url } });
      }
      return throwError(() => error);
    }),
  );
};
