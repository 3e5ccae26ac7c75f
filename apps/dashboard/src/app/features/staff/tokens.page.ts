import { ChangeDetectionStrategy, Component, computed, inject, OnInit, signal } from '@angular/core';
import { FormControl, FormGroup, ReactiveFormsModule, Validators } from '@angular/forms';
import { ADMIN_ROLES, type AdminRole, type ApiTokenDto } from '@arrbiter/contracts';
import {
  busyAction,
  ConfirmService,
  CopyButtonComponent,
  DataColumnDirective,
  DataTableComponent,
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
    DataTableComponent,
    DataColumnDirective,
    EmptyStateComponent,
  ],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <arb-page-header title="API tokens">
      <p arbPageDetail class="muted">
        For scripts and automation: send one as <code>Authorization: Bearer arb_…</code> to
        <code>/api/admin/v1/*</code>. A token acts with its role, never above yours, and cannot manage accounts or
        tokens.
      </p>
    </arb-page-header>

    <section class="card pad" aria-labelledby="new-token-title">
      <h2 id="new-token-title">New token</h2>
      <form [formGroup]="form" (ngSubmit)="create()">
        <div class="form-grid">
          <div class="field">
            <label for="token-name">Name</label>
            <input id="token-name" formControlName="name" autocomplete="off" placeholder="backup script" />
            <small>What uses it; recent changes name it as their author.</small>
          </div>
          <div class="field">
            <label for="token-role">Role</label>
            <select id="token-role" formControlName="role">
              @for (role of roles(); track role) {
                <option [value]="role">{{ role }}</option>
              }
            </select>
            <small>{{ descriptions[form.controls.role.value] }}; never above yours.</small>
          </div>
          <div class="field">
            <label for="token-expires">Expires on (optional)</label>
            <input id="token-expires" type="date" formControlName="expiresOn" [min]="tomorrow" />
            <small>Leave empty for a token that lasts until it is revoked.</small>
          </div>
        </div>
        <div class="form-actions">
          <button type="submit" class="primary" [disabled]="creating.busy()">Create token</button>
        </div>
      </form>
      @if (creating.error(); as e) {
        <p class="error" role="alert">{{ e }}</p>
      }
      @if (created(); as c) {
        <div class="notice created" role="status" data-testid="created-token">
          <p>
            <strong>Copy the token “{{ c.name }}” now:</strong> it is not shown again. Arrbiter keeps only a digest of
            it.
          </p>
          <p class="token-line">
            <code data-testid="token-value">{{ c.token }}</code>
            <arb-copy-button [value]="c.token" label="token" />
          </p>
          <button type="button" class="small" (click)="created.set(null)">Done</button>
        </div>
      }
    </section>

    <section class="card table-wrap" aria-labelledby="tokens-title">
      <h2 id="tokens-title" class="pad-title">{{ auth.can('owner') ? 'All tokens' : 'Your tokens' }}</h2>
      <arb-load-state [loading]="tokens.loading()" [error]="tokens.error()" (retry)="tokens.load()" />
      @if (revoking.error(); as e) {
        <p class="error" role="alert">{{ e }}</p>
      }
      @if (tokens.value(); as list) {
        @if (list.length === 0) {
          <arb-empty-state message="No tokens yet." />
        } @else {
          <arb-data-table labelledBy="tokens-title" [rows]="list" [trackBy]="byId" [rowTestId]="rowTestId">
            <ng-template arbColumn="Name" [of]="list" let-t>
              <strong>{{ t.name }}</strong>
            </ng-template>
            <ng-template arbColumn="Role" [of]="list" let-t>
              <span class="badge">{{ t.role }}</span>
            </ng-template>
            <ng-template arbColumn="Created by" [of]="list" let-t>{{ t.createdBy }}</ng-template>
            <ng-template arbColumn="Created" [of]="list" let-t>
              <arb-time [value]="t.createdAt" />
            </ng-template>
            <ng-template arbColumn="Expires" [of]="list" let-t>
              @if (t.expiresAt) {
                <arb-time [value]="t.expiresAt" />
              } @else {
                <span class="muted">Never</span>
              }
            </ng-template>
            <ng-template arbColumn="Last used" [of]="list" let-t>
              @if (t.lastUsedAt) {
                <arb-time [value]="t.lastUsedAt" />
              } @else {
                <span class="muted">Not yet</span>
              }
            </ng-template>
            <ng-template arbColumn="Actions" hiddenHeader cellClass="actions" [of]="list" let-t>
              <button type="button" class="small danger" (click)="revoke(t)" [attr.aria-label]="'Revoke ' + t.name">
                Revoke
              </button>
            </ng-template>
          </arb-data-table>
        }
      }
    </section>
  `,
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

  protected async create(): Promise<void> {
    const { name, role, expiresOn } = this.form.getRawValue();
    if (!TOKEN_NAME.test(name.trim())) {
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
