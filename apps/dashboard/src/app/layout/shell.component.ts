import { ChangeDetectionStrategy, Component, computed, DestroyRef, inject, signal } from '@angular/core';
import { Router, RouterLink, RouterLinkActive, RouterOutlet } from '@angular/router';
import { AuthService } from '../core/auth.service';
import { ThemeService } from '../core/theme.service';
import { LogoComponent } from './logo.component';
import { NAV_ITEMS } from './nav-items';
import { OpenWarningsService } from '../features/warnings/open-warnings.service';
import { ConfirmDialogComponent } from '@arrbiter/dashboard/ui';

const PUBLIC_URL_NOTICE_KEY = 'arrbiter.public-url-notice';

function readDismissed(): boolean {
  try {
    return localStorage.getItem(PUBLIC_URL_NOTICE_KEY) === 'dismissed';
  } catch {
    return false;
  }
}

@Component({
  selector: 'arb-shell',
  imports: [RouterOutlet, RouterLink, RouterLinkActive, LogoComponent, ConfirmDialogComponent],
  changeDetection: ChangeDetectionStrategy.OnPush,
  template: `
    <a class="skip" href="#main">Skip to content</a>
    <header class="topbar">
      <button
        type="button"
        class="icon menu"
        (click)="menuOpen.set(!menuOpen())"
        [attr.aria-expanded]="menuOpen()"
        aria-controls="nav"
        aria-label="Menu"
      >
        ☰
      </button>
      <a class="brand" routerLink="/home"><arb-logo /> Arrbiter</a>
      <span class="spacer"></span>
      @if (auth.can('editor')) {
        <a class="button connect" routerLink="/connect" data-testid="topbar-connect"
          >Connect<span class="long"> a client</span></a
        >
      }
      <button
        type="button"
        class="icon"
        (click)="theme.toggle()"
        [attr.aria-label]="theme.theme() === 'dark' ? 'Use light theme' : 'Use dark theme'"
      >
        {{ theme.theme() === 'dark' ? '☀' : '☾' }}
      </button>
      <a class="user" routerLink="/account" data-testid="current-user">
        <span class="visually-hidden">Your account:</span> {{ auth.username() }}
        <span class="badge" data-testid="current-role">{{ auth.role() }}</span>
      </a>
      <button type="button" (click)="signOut()">Sign out</button>
    </header>
    <div class="layout">
      <nav id="nav" [class.open]="menuOpen()" aria-label="Sections">
        @for (item of items(); track item.path) {
          <a
            [routerLink]="['/', item.path]"
            routerLinkActive="active"
            ariaCurrentWhenActive="page"
            (click)="menuOpen.set(false)"
            [attr.aria-label]="item.path === 'warnings' ? openWarnings.label() : null"
            [attr.data-testid]="'nav-' + item.path"
          >
            <span aria-hidden="true">{{ item.icon }}</span> {{ item.label }}
            @if (item.path === 'warnings' && openWarnings.count(); as open) {
              @if (open.count > 0) {
                <span class="badge warn nav-count" aria-hidden="true">{{ open.count }}{{ open.more ? '+' : '' }}</span>
              }
            }
          </a>
        }
        <!-- A page of the server's, outside the dashboard (Swagger UI). -->
        <a class="api-docs" href="api/docs"><span aria-hidden="true">⌘</span> Admin API</a>
      </nav>
      <main id="main" tabindex="-1">
        @if (showPublicUrlNotice()) {
          <div class="notice public-url" role="status" data-testid="public-url-notice">
            <p>
              <strong>Set <code>PUBLIC_URL</code>.</strong> It is unset, so the proxy URLs shown here, whether cookies
              are Secure, and which writes count as same-origin follow the address this page was opened at, and links in
              notifications point to localhost. Set it to the address clients and browsers use (e.g.
              <code>https://arrbiter.example.com</code>) and restart.
            </p>
            <button type="button" (click)="dismissPublicUrlNotice()">Dismiss</button>
          </div>
        }
        <router-outlet />
      </main>
    </div>
    <arb-confirm-dialog />
  `,
  styles: `
    .skip {
      position: absolute;
      left: -999px;
    }
    .skip:focus {
      left: 1rem;
      top: 0.5rem;
      z-index: 10;
      background: var(--surface);
      padding: 0.5rem;
    }
    .topbar {
      display: flex;
      align-items: center;
      gap: 0.75rem;
      padding: 0.5rem 1rem;
      border-bottom: 1px solid var(--border);
      background: var(--surface);
      position: sticky;
      top: 0;
      z-index: 5;
    }
    .brand {
      font-weight: 700;
      color: var(--text);
      text-decoration: none;
      font-size: 1.1rem;
    }
    .spacer {
      flex: 1;
    }
    .connect {
      padding: 0.375rem 0.75rem;
      white-space: nowrap;
    }
    .user {
      color: var(--muted);
      font-size: 0.875rem;
      text-decoration: none;
    }
    .user:hover {
      color: var(--text);
    }
    .menu {
      display: none;
    }
    .layout {
      display: grid;
      grid-template-columns: 14rem 1fr;
      min-height: calc(100dvh - 3.25rem);
    }
    nav {
      display: flex;
      flex-direction: column;
      gap: 0.125rem;
      padding: 1rem 0.5rem;
      border-right: 1px solid var(--border);
      background: var(--surface);
    }
    nav a {
      padding: 0.5rem 0.75rem;
      border-radius: 0.5rem;
      color: var(--text);
      text-decoration: none;
    }
    nav a:hover {
      background: var(--hover);
    }
    nav a.api-docs {
      margin-top: 0.5rem;
      border-top: 1px solid var(--border);
      border-radius: 0 0 0.5rem 0.5rem;
      color: var(--muted);
    }
    nav a.active {
      background: var(--accent-soft);
      color: var(--accent);
      font-weight: 600;
    }
    main {
      padding: 1.5rem;
      min-width: 0;
      outline: none;
    }
    .public-url {
      display: flex;
      align-items: flex-start;
      gap: 0.75rem;
      margin: 0 0 1rem;
    }
    .public-url p {
      margin: 0;
      flex: 1;
    }
    @media (max-width: 720px) {
      .menu {
        display: inline-flex;
      }
      .user {
        display: none;
      }
      .topbar {
        gap: 0.5rem;
        padding: 0.5rem 0.75rem;
      }
      .connect .long {
        display: none;
      }
      .layout {
        grid-template-columns: 1fr;
      }
      nav {
        display: none;
        border-right: 0;
        border-bottom: 1px solid var(--border);
      }
      nav.open {
        display: flex;
      }
      main {
        padding: 1rem;
      }
    }
  `,
})
export class ShellComponent {
  protected readonly auth = inject(AuthService);
  protected readonly theme = inject(ThemeService);
  private readonly router = inject(Router);
  /** The open-warnings count by the Warnings link. */
  protected readonly openWarnings = inject(OpenWarningsService);
  /** The sections this administrator's role opens. */
  protected readonly items = computed(() => NAV_ITEMS.filter((item) => !item.minRole || this.auth.can(item.minRole)));
  protected readonly menuOpen = signal(false);
  /** Dismissed in this browser (it comes back in another, or after the storage is cleared). */
  private readonly publicUrlNoticeDismissed = signal(readDismissed());
  protected readonly showPublicUrlNotice = computed(
    () => !this.auth.publicUrlSet() && !this.publicUrlNoticeDismissed(),
  );

  constructor() {
    this.openWarnings.watch(this.router, inject(DestroyRef));
  }

  protected dismissPublicUrlNotice(): void {
    this.publicUrlNoticeDismissed.set(true);
    try {
      localStorage.setItem(PUBLIC_URL_NOTICE_KEY, 'dismissed');
    } catch {
      // Storage refused (private mode): dismissed for this page only.
    }
  }

  protected async signOut(): Promise<void> {
    await this.auth.signOut();
    await this.router.navigate(['/sign-in']);
  }
}
