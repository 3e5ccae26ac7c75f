import { ChangeDetectionStrategy, Component, inject, signal } from '@angular/core';
import { FormControl, FormGroup, ReactiveFormsModule, Validators } from '@angular/forms';
import { ActivatedRoute, Router } from '@angular/router';
import { HttpErrorResponse } from '@angular/common/http';
import { AuthService } from '../../core/auth.service';
import { describeError } from '../../core/api-error';
import { LogoComponent } from '../../layout/logo.component';

/** Only same-app paths are followed after sign-in (never another origin). */
function safeNext(value: string | null): string {
  return value && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/sign-in') ? value : '/';
}

@Component({
  selector: 'arb-sign-in-page',
  imports: [ReactiveFormsModule, LogoComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <main class="sign-in">
      <form class="card" [formGroup]="form" (ngSubmit)="submit()" aria-labelledby="sign-in-title">
        <arb-logo [size]="40" />
        <h1 id="sign-in-title">Sign in to Arrbiter</h1>
        <label for="username">Username</label>
        <input
          id="username"
          formControlName="username"
          autocomplete="username"
          autocapitalize="none"
          spellcheck="false"
          required
        />
        <label for="password">Password</label>
        <input id="password" type="password" formControlName="password" autocomplete="current-password" required />
        @if (error()) {
          <p class="error" role="alert">{{ error() }}</p>
        }
        <button type="submit" class="primary" [disabled]="busy()">
          {{ busy() ? 'Signing in…' : 'Sign in' }}
        </button>
      </form>
    </main>
  `,
  styles: `
    .sign-in {
      min-height: 100dvh;
      display: grid;
      place-items: center;
      padding: 1rem;
    }
    .card {
      width: min(24rem, 100%);
      display: grid;
      gap: 0.5rem;
      padding: 2rem;
    }
    .brand {
      font-size: 2rem;
      color: var(--accent);
    }
    h1 {
      font-size: 1.25rem;
      margin: 0 0 1rem;
    }
    label {
      font-weight: 600;
      font-size: 0.875rem;
      margin-top: 0.5rem;
    }
    button {
      margin-top: 1rem;
    }
  `,
})
export class SignInPage {
  private readonly auth = inject(AuthService);
  private readonly router = inject(Router);
  private readonly route = inject(ActivatedRoute);

  protected readonly busy = signal(false);
  protected readonly error = signal<string | null>(null);
  protected readonly form = new FormGroup({
    username: new FormControl('', { nonNullable: true, validators: [Validators.required, Validators.maxLength(64)] }),
    password: new FormControl('', { nonNullable: true, validators: [Validators.required, Validators.maxLength(256)] }),
  });

  protected async submit(): Promise<void> {
    if (this.form.invalid) {
      this.error.set('Enter your username and password.');
      return;
    }
    this.busy.set(true);
    this.error.set(null);
    try {
      await this.auth.signIn(this.form.getRawValue());
      await this.router.navigateByUrl(safeNext(this.route.snapshot.queryParamMap.get('next')));
    } catch (error) {
      this.error.set(
        error instanceof HttpErrorResponse && error.status === 401
          ? 'Wrong username or password.'
          : describeError(error),
      );
      this.form.controls.password.reset();
    } finally {
      this.busy.set(false);
    }
  }
}
