import { ChangeDetectionStrategy, Component, inject, OnInit, signal } from '@angular/core';
import { FormControl, FormGroup, ReactiveFormsModule, Validators } from '@angular/forms';
import type { AuthSessionDto, SignInMethodsResponse } from '@arrbiter/contracts';
import {
  busyAction,
  ConfirmService,
  DataColumnDirective,
  DataTableComponent,
  LoadStateComponent,
  PageHeaderComponent,
  TimeComponent,
} from '@arrbiter/dashboard/ui';
import { AuthService } from '../../core/auth.service';
import { Loadable } from '../../core/loadable';
import { StaffApiService } from './staff-api.service';

/** The least length the server accepts for a new password. */
export const MIN_PASSWORD_LENGTH = 12;

/** One's own account: who and what role, the password, and the sessions signed in elsewhere. */
@Component({
  selector: 'arb-account-page',
  imports: [
    ReactiveFormsModule,
    LoadStateComponent,
    TimeComponent,
    PageHeaderComponent,
    DataTableComponent,
    DataColumnDirective,
  ],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <arb-page-header title="Your account">
      <p arbPageDetail class="muted">
        Signed in as <strong data-testid="account-username">{{ auth.username() }}</strong>
        <span class="badge accent" data-testid="account-role">{{ auth.role() }}</span>
      </p>
    </arb-page-header>

    @if (methods()?.password !== false) {
      <section class="card pad" aria-labelledby="password-title">
        <h2 id="password-title">Change your password</h2>
        <p class="hint">Your other sessions end; this one stays signed in.</p>
        <form [formGroup]="password" (ngSubmit)="changePassword()" class="stack narrow">
          <div class="field">
            <label for="current-password">Current password</label>
            <input
              id="current-password"
              type="password"
              formControlName="currentPassword"
              autocomplete="current-password"
            />
          </div>
          <div class="field">
            <label for="new-password">New password</label>
            <input
              id="new-password"
              type="password"
              formControlName="newPassword"
              autocomplete="new-password"
              aria-describedby="new-password-hint"
            />
            <small id="new-password-hint">At least {{ minLength }} characters.</small>
          </div>
          <div class="field">
            <label for="repeat-password">New password again</label>
            <input id="repeat-password" type="password" formControlName="repeat" autocomplete="new-password" />
          </div>
          @if (changing.notice(); as m) {
            <p [class]="m.ok ? 'success' : 'error'" [attr.role]="m.ok ? 'status' : 'alert'">{{ m.text }}</p>
          }
          <div class="form-actions">
            <button type="submit" class="primary" [disabled]="changing.busy()">Change password</button>
          </div>
        </form>
      </section>
    }

    <section class="card pad" aria-labelledby="sessions-title">
      <h2 id="sessions-title">Where you are signed in</h2>
      <arb-load-state [loading]="sessions.loading()" [error]="sessions.error()" (retry)="sessions.load()" />
      @if (ending.error(); as m) {
        <p class="error" role="alert">{{ m }}</p>
      }
      @if (sessions.value(); as list) {
        @if (list.length === 0) {
          <p class="muted">No session: you came in through your front proxy's sign-in.</p>
        } @else {
          <arb-data-table
            class="table-wrap"
            labelledBy="sessions-title"
            [rows]="list"
            [trackBy]="byId"
            [rowTestId]="rowTestId"
          >
            <ng-template arbColumn="Device" [of]="list" let-s>
              {{ s.device ?? 'Unknown device' }}
              @if (s.current) {
                <span class="badge ok">This session</span>
              }
            </ng-template>
            <ng-template arbColumn="Address" [of]="list" let-s>
              <code>{{ s.address ?? '—' }}</code>
            </ng-template>
            <ng-template arbColumn="Last seen" [of]="list" let-s>
              <arb-time [value]="s.lastSeen" />
            </ng-template>
            <ng-template arbColumn="Signed in" [of]="list" let-s>
              <arb-time [value]="s.createdAt" />
            </ng-template>
            <ng-template arbColumn="Actions" hiddenHeader cellClass="actions" [of]="list" let-s>
              @if (!s.current) {
                <button
                  type="button"
                  class="small"
                  (click)="endSession(s)"
                  [attr.aria-label]="'Sign out ' + (s.device ?? 'the unknown device')"
                >
                  Sign out
                </button>
              }
            </ng-template>
          </arb-data-table>
        }
      }
    </section>
  `,
  styles: `
    .narrow {
      max-width: 24rem;
    }
    section + section {
      margin-top: 1rem;
    }
  `,
})
export class AccountPage implements OnInit {
  protected readonly byId = (s: AuthSessionDto) => s.id;
  protected readonly rowTestId = (s: AuthSessionDto) => (s.current ? 'session-current' : 'session');
  protected readonly auth = inject(AuthService);
  private readonly api = inject(StaffApiService);
  private readonly confirm = inject(ConfirmService);
  protected readonly minLength = MIN_PASSWORD_LENGTH;
  protected readonly sessions = new Loadable(() => this.api.sessions());
  protected readonly methods = signal<SignInMethodsResponse | null>(null);
  protected readonly changing = busyAction();
  protected readonly ending = busyAction();
  protected readonly password = new FormGroup({
    currentPassword: new FormControl('', { nonNullable: true, validators: [Validators.required] }),
    newPassword: new FormControl('', {
      nonNullable: true,
      validators: [Validators.required, Validators.minLength(MIN_PASSWORD_LENGTH), Validators.maxLength(256)],
    }),
    repeat: new FormControl('', { nonNullable: true }),
  });

  ngOnInit(): void {
    void this.sessions.load();
    this.auth.methods().then(
      (methods) => this.methods.set(methods),
      () => this.methods.set(null),
    );
  }

  protected async changePassword(): Promise<void> {
    const { currentPassword, newPassword, repeat } = this.password.getRawValue();
    if (!currentPassword) return this.changing.say({ ok: false, text: 'Enter your current password.' });
    if (newPassword.length < MIN_PASSWORD_LENGTH) {
      return this.changing.say({
        ok: false,
        text: `The new password needs at least ${MIN_PASSWORD_LENGTH} characters.`,
      });
    }
    if (newPassword !== repeat) return this.changing.say({ ok: false, text: 'The two new passwords differ.' });
    const outcome = await this.changing.run(
      () => this.api.changePassword({ currentPassword, newPassword }),
      'Password changed. Your other sessions were signed out.',
    );
    if (!outcome.ok) return;
    this.password.reset();
    await this.sessions.load();
  }

  protected async endSession(session: AuthSessionDto): Promise<void> {
    const ok = await this.confirm.ask({
      title: 'Sign out that session?',
      message: `${session.device ?? 'The device'} at ${session.address ?? 'an unknown address'} must sign in again.`,
      confirmLabel: 'Sign out',
    });
    if (!ok) return;
    const outcome = await this.ending.run(() => this.api.endSession(session.id));
    if (outcome.ok) this.sessions.set((this.sessions.value() ?? []).filter((s) => s.id !== session.id));
  }
}
