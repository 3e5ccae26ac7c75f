import { ChangeDetectionStrategy, Component, computed, inject, OnInit, signal } from '@angular/core';
import { FormControl, FormGroup, ReactiveFormsModule, Validators } from '@angular/forms';
import { ADMIN_ROLES, type AdminAccountDto, type AdminRole } from '@arrbiter/contracts';
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
import { MIN_PASSWORD_LENGTH } from './account.page';
import { StaffApiService } from './staff-api.service';
import { ROLE_DESCRIPTIONS } from './tokens.page';

const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;

/** Owners manage the administrators: who they are, their roles, their passwords. */
@Component({
  selector: 'arb-accounts-page',
  imports: [ReactiveFormsModule, LoadStateComponent, TimeComponent, PageHeaderComponent, DATA_TABLE],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './accounts.page.html',
  styles: `
    .form-grid select {
      width: 100%;
    }
    .you {
      margin-left: 0.375rem;
    }
    section + section,
    section + p {
      margin-top: 1rem;
    }
  `,
})
export class AccountsPage implements OnInit {
  protected readonly byId = (a: AdminAccountDto) => a.id;
  protected readonly rowTestId = (a: AdminAccountDto) => 'account-' + a.username;
  protected readonly detailOpen = (a: AdminAccountDto) => this.settingPassword() === a.id;
  protected readonly auth = inject(AuthService);
  private readonly api = inject(StaffApiService);
  private readonly confirm = inject(ConfirmService);
  protected readonly roles = ADMIN_ROLES;
  protected readonly descriptions = ROLE_DESCRIPTIONS;
  protected readonly minLength = MIN_PASSWORD_LENGTH;
  protected readonly accounts = new Loadable(() => this.api.accounts());
  protected readonly adding = signal(false);
  /** The account form's call (its error shows in the form) and the list's calls (a line above it). */
  protected readonly creating = busyAction();
  protected readonly action = busyAction();
  protected readonly busy = computed(() => this.creating.busy() || this.action.busy());
  protected readonly settingPassword = signal<string | null>(null);
  protected readonly form = new FormGroup({
    username: new FormControl('', {
      nonNullable: true,
      validators: [Validators.required, Validators.pattern(USERNAME)],
    }),
    role: new FormControl<AdminRole>('viewer', { nonNullable: true }),
    password: new FormControl('', { nonNullable: true }),
  });

  ngOnInit(): void {
    void this.accounts.load();
  }

  /** The field the create form's message is about: marked invalid, described by the message, and focused. */
  protected readonly fieldAtFault = signal<'username' | 'password' | null>(null);

  private flagField(field: 'username' | 'password'): void {
    this.fieldAtFault.set(field);
    document.getElementById(`account-${field}`)?.focus();
  }

  protected async create(): Promise<void> {
    const { username, role, password } = this.form.getRawValue();
    this.fieldAtFault.set(null);
    if (!USERNAME.test(username.trim())) {
      this.flagField('username');
      return this.creating.say({
        ok: false,
        text: 'Usernames are 1–64 letters, digits, dots, dashes, underscores or @.',
      });
    }
    if (password && password.length < MIN_PASSWORD_LENGTH) {
      this.flagField('password');
      return this.creating.say({
        ok: false,
        text: `A password needs at least ${MIN_PASSWORD_LENGTH} characters (or leave it empty).`,
      });
    }
    this.action.clear();
    const outcome = await this.creating.run(() =>
      this.api.createAccount({ username: username.trim(), role, password: password || undefined }),
    );
    if (!outcome.ok) return;
    const account = outcome.value;
    this.accounts.set([...(this.accounts.value() ?? []), account].sort((x, y) => x.username.localeCompare(y.username)));
    this.form.reset({ username: '', role: 'viewer', password: '' });
    this.adding.set(false);
    this.action.say({ ok: true, text: `Account “${account.username}” created as ${account.role}.` });
  }

  protected async setRole(account: AdminAccountDto, select: HTMLSelectElement): Promise<void> {
    const role = select.value as AdminRole;
    this.creating.clear();
    const outcome = await this.action.run(async () => {
      this.replace(await this.api.updateAccount(account.id, { role }));
      // Owners who demote themselves lose this page.
      if (account.username === this.auth.username()) await this.auth.ensureSession(true);
    }, `${account.username} is now ${role}.`);
    // The server kept the role (the last owner stays): so does the picker.
    if (!outcome.ok) select.value = account.role;
  }

  protected async setPassword(account: AdminAccountDto, password: string): Promise<void> {
    if (password.length < MIN_PASSWORD_LENGTH) {
      this.action.say({ ok: false, text: `A password needs at least ${MIN_PASSWORD_LENGTH} characters.` });
      return;
    }
    this.creating.clear();
    await this.action.run(async () => {
      this.replace(await this.api.updateAccount(account.id, { password }));
      this.settingPassword.set(null);
    }, `Password of ${account.username} set; their sessions ended.`);
  }

  protected async remove(account: AdminAccountDto): Promise<void> {
    const ok = await this.confirm.ask({
      title: `Delete ${account.username}?`,
      message: 'Their sessions and API tokens end at once.',
      confirmLabel: 'Delete',
      danger: true,
    });
    if (!ok) return;
    this.creating.clear();
    await this.action.run(async () => {
      await this.api.removeAccount(account.id);
      this.accounts.set((this.accounts.value() ?? []).filter((a) => a.id !== account.id));
    }, `Account “${account.username}” deleted.`);
  }

  private replace(account: AdminAccountDto): void {
    this.accounts.set((this.accounts.value() ?? []).map((a) => (a.id === account.id ? account : a)));
  }
}
