import { HttpClient } from '@angular/common/http';
import { ChangeDetectionStrategy, Component, computed, inject, signal } from '@angular/core';
import { FormControl, FormGroup, ReactiveFormsModule } from '@angular/forms';
import { ActivatedRoute, Router } from '@angular/router';
import type { ChangePasswordRequest } from '@arrbiter/contracts';
import { busyAction } from '@arrbiter/dashboard/ui';
import { firstValueFrom } from 'rxjs';
import { AuthService } from '../../core/auth.service';
import { LogoComponent } from '../../layout/logo.component';
import { MIN_PASSWORD_LENGTH } from '../staff/account.page';

/** Only same-app paths are followed afterwards (never another origin, never this step again). */
function safeNext(value: string | null): string {
  return value && value.startsWith('/') && !value.startsWith('//') && !value.startsWith('/choose-password')
    ? value
    : '/';
}

/** How strong a new password looks: length first, then how many kinds of characters it mixes. */
export function passwordStrength(password: string): { level: 'short' | 'weak' | 'fair' | 'strong'; text: string } {
  if (password.length < MIN_PASSWORD_LENGTH) {
    return { level: 'short', text: `At least ${MIN_PASSWORD_LENGTH} characters (${password.length} so far).` };
  }
  const kinds = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((kind) => kind.test(password)).length;
  const distinct = new Set(password).size;
  if (distinct < 6) return { level: 'weak', text: 'Weak: too many repeated characters.' };
  if (password.length >= 20 || (password.length >= 16 && kinds >= 2) || kinds >= 4) {
    return { level: 'strong', text: 'Strong.' };
  }
  if (kinds >= 2) return { level: 'fair', text: 'Fair: a few more words or characters make it strong.' };
  return { level: 'weak', text: 'Weak: make it longer, or mix in digits, capitals or symbols.' };
}

/**
 * The step after signing in with a generated password: choose one's own (typed twice). An owner may
 * keep the generated one instead (remembered by the server); others must choose.
 */
@Component({
  selector: 'arb-choose-password-page',
  imports: [ReactiveFormsModule, LogoComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <main class="choose">
      <div class="card">
        <arb-logo [size]="40" />
        <h1 id="choose-title">Choose your own password</h1>
        <p class="muted">
          You signed in as <strong>{{ auth.username() }}</strong> with a generated password.
          @if (owner()) {
            Choose one of your own, or keep the generated one if you stored it safely.
          } @else {
            Choose one of your own to go on.
          }
        </p>
        <form [formGroup]="form" novalidate (ngSubmit)="choose()" aria-labelledby="choose-title" class="fields">
          <input type="text" autocomplete="username" [value]="auth.username() ?? ''" hidden aria-hidden="true" />
          @if (!heldPassword) {
            <label for="current-password">Generated password</label>
            <input
              id="current-password"
              type="password"
              formControlName="currentPassword"
              autocomplete="current-password"
              required
            />
          }
          <label for="new-password">New password</label>
          <input
            id="new-password"
            type="password"
            formControlName="newPassword"
            autocomplete="new-password"
            aria-describedby="strength"
            required
          />
          <p id="strength" class="hint" [attr.data-level]="strength().level" data-testid="strength" aria-live="polite">
            {{ strength().text }}
          </p>
          <label for="repeat-password">New password again</label>
          <input id="repeat-password" type="password" formControlName="repeat" autocomplete="new-password" required />
          @if (choosing.error() ?? keeping.error(); as message) {
            <p class="error" role="alert">{{ message }}</p>
          }
          <button type="submit" class="primary" [disabled]="choosing.busy() || keeping.busy()">
            {{ choosing.busy() ? 'Saving…' : 'Save my password' }}
          </button>
          @if (owner()) {
            <button type="button" (click)="keep()" [disabled]="choosing.busy() || keeping.busy()" data-testid="keep">
              Keep the generated password
            </button>
          }
        </form>
      </div>
    </main>
  `,
  styles: `
    .choose {
      min-height: 100dvh;
      display: grid;
      place-items: center;
      padding: 1rem;
    }
    .card {
      width: min(26rem, 100%);
      display: grid;
      gap: 0.5rem;
      padding: 2rem;
      min-width: 0;
    }
    h1 {
      font-size: 1.25rem;
      margin: 0;
    }
    .fields {
      display: grid;
      gap: 0.5rem;
    }
    label {
      font-weight: 600;
      font-size: 0.875rem;
      margin-top: 0.5rem;
    }
    .hint {
      font-size: 0.875rem;
      margin: 0;
      color: var(--muted);
    }
    button {
      margin-top: 0.5rem;
    }
  `,
})
export class ChoosePasswordPage {
  protected readonly auth = inject(AuthService);
  private readonly http = inject(HttpClient);
  private readonly router = inject(Router);
  private readonly route = inject(ActivatedRoute);

  /** The generated password typed at sign-in in this tab: then it is not asked again. */
  protected readonly heldPassword = this.auth.signInPassword();
  protected readonly owner = computed(() => this.auth.role() === 'owner');
  protected readonly choosing = busyAction();
  protected readonly keeping = busyAction();
  protected readonly form = new FormGroup({
    currentPassword: new FormControl('', { nonNullable: true }),
    newPassword: new FormControl('', { nonNullable: true }),
    repeat: new FormControl('', { nonNullable: true }),
  });
  private readonly typed = signal('');
  protected readonly strength = computed(() => passwordStrength(this.typed()));

  constructor() {
    this.form.controls.newPassword.valueChanges.subscribe((value) => this.typed.set(value));
  }

  protected async choose(): Promise<void> {
    const { currentPassword, newPassword, repeat } = this.form.getRawValue();
    const current = this.heldPassword ?? currentPassword;
    if (!current) return this.choosing.say({ ok: false, text: 'Enter the generated password you signed in with.' });
    if (newPassword.length < MIN_PASSWORD_LENGTH) {
      return this.choosing.say({
        ok: false,
        text: `The new password needs at least ${MIN_PASSWORD_LENGTH} characters.`,
      });
    }
    if (newPassword !== repeat) return this.choosing.say({ ok: false, text: 'The two new passwords differ.' });
    if (newPassword === current) {
      return this.choosing.say({ ok: false, text: 'Choose a password other than the generated one.' });
    }
    const request: ChangePasswordRequest = { currentPassword: current, newPassword };
    const outcome = await this.choosing.run(() => firstValueFrom(this.http.put<void>('/api/auth/password', request)));
    if (outcome.ok) await this.done();
  }

  protected async keep(): Promise<void> {
    const outcome = await this.keeping.run(() => firstValueFrom(this.http.post<void>('/api/auth/password/keep', {})));
    if (outcome.ok) await this.done();
  }

  private async done(): Promise<void> {
    this.form.reset();
    this.auth.passwordSettled();
    await this.router.navigateByUrl(safeNext(this.route.snapshot.queryParamMap.get('next')));
  }
}
