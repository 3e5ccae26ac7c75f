import { ChangeDetectionStrategy, Component, inject, OnInit, signal } from '@angular/core';
import { FormControl, FormGroup, ReactiveFormsModule, Validators } from '@angular/forms';
import type { AuthSessionDto, SignInMethodsResponse } from '@arrbiter/contracts';
import {
  busyAction,
  ConfirmService,
  DATA_TABLE,
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
  imports: [ReactiveFormsModule, LoadStateComponent, TimeComponent, PageHeaderComponent, DATA_TABLE],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './account.page.html',
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

  /** The field the password form's message is about: marked invalid, described by the message, and focused. */
  protected readonly fieldAtFault = signal<'current-password' | 'new-password' | 'repeat-password' | null>(null);

  private flagField(field: 'current-password' | 'new-password' | 'repeat-password', text: string): void {
    this.fieldAtFault.set(field);
    this.changing.say({ ok: false, text });
    document.getElementById(field)?.focus();
  }

  protected async changePassword(): Promise<void> {
    const { currentPassword, newPassword, repeat } = this.password.getRawValue();
    this.fieldAtFault.set(null);
    if (!currentPassword) return this.flagField('current-password', 'Enter your current password.');
    if (newPassword.length < MIN_PASSWORD_LENGTH) {
      return this.flagField('new-password', `The new password needs at least ${MIN_PASSWORD_LENGTH} characters.`);
    }
    if (newPassword !== repeat) return this.flagField('repeat-password', 'The two new passwords differ.');
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
