import { ChangeDetectionStrategy, Component, computed, inject, OnInit, signal } from '@angular/core';
import { FormControl, FormGroup, ReactiveFormsModule, Validators } from '@angular/forms';
import { ADMIN_ROLES, type AdminRole, type ApiTokenDto } from '@arrbiter/contracts';
import {
  busyAction,
  ConfirmService,
  CopyButtonComponent,
  DATA_TABLE,
  EmptyStateComponent,
  LoadStateComponent,
  PageHeaderComponent,
  TimeComponent,
} from '@arrbiter/dashboard/ui';
import { AuthService } from '../../core/auth.service';
import { Loadable } from '../../core/loadable';
import { StaffApiService } from './staff-api.service';

/** Token names the server accepts. */
const TOKEN_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;

/** What each role may do with the admin API, for the role picker. */
export const ROLE_DESCRIPTIONS: Record<AdminRole, string> = {
  owner: 'everything, including accounts and settings',
  editor: 'all configuration',
  viewer: 'read only, no secrets',
};

/**
 * API tokens for scripts and automation: made with a role up to one's own, shown once, revoked at
 * once. An owner sees and revokes everyone's.
 */
@Component({
  selector: 'arb-tokens-page',
  imports: [
    ReactiveFormsModule,
    CopyButtonComponent,
    LoadStateComponent,
    TimeComponent,
    PageHeaderComponent,
    EmptyStateComponent,
    DATA_TABLE,
  ],
  changeDetection: ChangeDetectionStrategy.OnPush,
  templateUrl: './tokens.page.html',
  styles: `
    section + section {
      margin-top: 1rem;
    }
    .form-grid select {
      width: 100%;
    }
    .pad-title {
      padding: 1rem 1rem 0;
    }
    .created {
      margin-top: 1rem;
    }
    .token-line {
      display: flex;
      flex-wrap: wrap;
      align-items: center;
      gap: 0.5rem;
    }
    .token-line code {
      word-break: break-all;
    }
  `,
})
export class TokensPage implements OnInit {
  protected readonly byId = (t: ApiTokenDto) => t.id;
  protected readonly rowTestId = (t: ApiTokenDto) => 'token-' + t.name;
  protected readonly auth = inject(AuthService);
  private readonly api = inject(StaffApiService);
  private readonly confirm = inject(ConfirmService);
  protected readonly descriptions = ROLE_DESCRIPTIONS;
  protected readonly tokens = new Loadable(() => this.api.tokens());
  /** The roles a token of this administrator may have: up to their own. */
  protected readonly roles = computed(() => ADMIN_ROLES.filter((role) => this.auth.can(role)));
  protected readonly creating = busyAction();
  protected readonly revoking = busyAction();
  protected readonly created = signal<{ name: string; token: string } | null>(null);
  protected readonly tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  protected readonly form = new FormGroup({
    name: new FormControl('', { nonNullable: true, validators: [Validators.required, Validators.pattern(TOKEN_NAME)] }),
    role: new FormControl<AdminRole>('viewer', { nonNullable: true }),
    expiresOn: new FormControl('', { nonNullable: true }),
  });

  ngOnInit(): void {
    void this.tokens.load();
  }

  /** The name failed the form's own check: the field is marked invalid, described by the message, and focused. */
  protected readonly nameAtFault = signal(false);

  protected async create(): Promise<void> {
    const { name, role, expiresOn } = this.form.getRawValue();
    this.nameAtFault.set(!TOKEN_NAME.test(name.trim()));
    if (this.nameAtFault()) {
      document.getElementById('token-name')?.focus();
      this.creating.say({
        ok: false,
        text: 'Name the token: 1–64 letters, digits, spaces, dots, dashes or underscores.',
      });
      return;
    }
    const expiresAt = expiresOn ? new Date(`${expiresOn}T23:59:59`).toISOString() : null;
    await this.creating.run(async () => {
      const { token } = await this.api.createToken({ name: name.trim(), role, expiresAt });
      this.created.set({ name: name.trim(), token });
      this.form.reset({ name: '', role: 'viewer', expiresOn: '' });
      await this.tokens.load();
    });
  }

  protected async revoke(token: ApiTokenDto): Promise<void> {
    const ok = await this.confirm.ask({
      title: `Revoke “${token.name}”?`,
      message: 'It stops working at once, on every replica. Whatever uses it needs a new token.',
      confirmLabel: 'Revoke',
      danger: true,
    });
    if (!ok) return;
    const outcome = await this.revoking.run(() => this.api.revokeToken(token.id));
    if (outcome.ok) this.tokens.set((this.tokens.value() ?? []).filter((t) => t.id !== token.id));
  }
}
