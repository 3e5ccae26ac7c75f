import { ChangeDetectionStrategy, Component, computed, inject, OnInit, signal } from '@angular/core';
import { FormControl, FormGroup, ReactiveFormsModule, Validators } from '@angular/forms';
import { ActivatedRoute, Router } from '@angular/router';
import { HttpErrorResponse } from '@angular/common/http';
import type { SignInMethodsResponse } from '@arrbiter/contracts';
import { AuthService } from '../../core/auth.service';
import { LogoComponent } from '../../layout/logo.component';
import { busyAction, describeError } from '@arrbiter/dashboard/ui';

/** Only same-app paths are followed after sign-in (never another origin). */
function safeNext(value: string | null): string {
  return value && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/sign-in') ? value : '/';
}

/** Why single sign-on sent the browser back here (`?sso=` from the server's callback). */
export const SSO_REASONS: Record<string, string> = {
  'no-account': 'Your single sign-on account has no Arrbiter account. Ask an owner to add you.',
  'no-role': 'Your identity provider gives you no Arrbiter role. Ask an owner to map one of your groups.',
  conflict: 'This username is already linked to another single sign-on identity.',
  'invalid-username': 'Your identity provider sent no username Arrbiter can use.',
  'link-required':
    'An Arrbiter account of this name has a password or is an owner, so single sign-on does not link to it by itself. ' +
    'Sign in with the password and link single sign-on from your account page, or ask an owner.',
  'last-owner':
    'Your identity provider no longer makes you an owner, and you are the last owner: sign-in refused. ' +
    'Sign in with a password and make someone else owner first, or ask for your owner group back.',
  unavailable: 'The identity provider cannot be reached right now. Try again later.',
  failed: 'Single sign-on did not complete. Try again.',
};

@Component({
  selector: 'arb-sign-in-page',
  imports: [ReactiveFormsModule, LogoComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <main class="sign-in">
      <div class="card">
        <arb-logo [size]="40" />
        <h1 id="sign-in-title">Sign in to Arrbiter</h1>
        @if (ssoError(); as message) {
          <p class="error" role="alert" data-testid="sso-error">{{ message }}</p>
        }
        @if (methods()?.sso; as sso) {
          <a class="button primary sso" href="api/auth/oidc/login" data-testid="sso-button">{{ sso.label }}</a>
        }
        @if (methods()?.sso && methods()?.password) {
          <p class="or" aria-hidden="true"><span>or</span></p>
        }
        @if (methods()?.password !== false) {
          <form [formGroup]="form" novalidate (ngSubmit)="submit()" aria-labelledby="sign-in-title" class="password">
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
            @if (signingIn.error(); as message) {
              <p class="error" role="alert">{{ message }}</p>
            }
            <button type="submit" [class.primary]="!methods()?.sso" [disabled]="signingIn.busy()">
              {{ signingIn.busy() ? 'Signing in…' : 'Sign in' }}
            </button>
          </form>
        } @else if (!methods()?.sso) {
          <p class="muted">Sign in through your front proxy; this server takes no passwords.</p>
        }
      </div>
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
    h1 {
      font-size: 1.25rem;
      margin: 0 0 1rem;
    }
    .password {
      display: grid;
      gap: 0.5rem;
    }
    label {
      font-weight: 600;
      font-size: 0.875rem;
      margin-top: 0.5rem;
    }
    button {
      margin-top: 1rem;
    }
    .sso {
      text-align: center;
    }
    .or {
      display: flex;
      align-items: center;
      gap: 0.75rem;
      color: var(--muted);
      font-size: 0.875rem;
      margin: 0.75rem 0 0;
    }
    .or::before,
    .or::after {
      content: '';
      flex: 1;
      border-top: 1px solid var(--border);
    }
  `,
})
export class SignInPage implements OnInit {
  private readonly auth = inject(AuthService);
  private readonly router = inject(Router);
  private readonly route = inject(ActivatedRoute);

  protected readonly methods = signal<SignInMethodsResponse | null>(null);
  protected readonly signingIn = busyAction({
    describe: (error) =>
      error instanceof HttpErrorResponse && error.status === 401 ? 'Wrong username or password.' : describeError(error),
  });
  protected readonly ssoError = computed(() => {
    const reason = this.route.snapshot.queryParamMap.get('sso');
    return reason === null ? null : (SSO_REASONS[reason] ?? SSO_REASONS['failed']);
  });
  protected readonly form = new FormGroup({
    username: new FormControl('', { nonNullable: true, validators: [Validators.required, Validators.maxLength(64)] }),
    password: new FormControl('', { nonNullable: true, validators: [Validators.required, Validators.maxLength(256)] }),
  });

  ngOnInit(): void {
    // Until the server says otherwise, the password form shows (as it always did).
    this.auth.methods().then(
      (methods) => this.methods.set(methods),
      () => this.methods.set(null),
    );
  }

  protected async submit(): Promise<void> {
    if (this.form.invalid) {
      this.signingIn.say({ ok: false, text: 'Enter your username and password.' });
      return;
    }
    const outcome = await this.signingIn.run(async () => {
      await this.auth.signIn(this.form.getRawValue());
      await this.router.navigateByUrl(safeNext(this.route.snapshot.queryParamMap.get('next')));
    });
    if (!outcome.ok) this.form.controls.password.reset();
  }
}
