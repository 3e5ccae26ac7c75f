import { Route } from '@angular/router';
import { roleGuard } from '../../core/auth.guard';

export const ACCOUNT_ROUTES: Route[] = [
  {
    path: '',
    title: 'Your account · Arrbiter',
    loadComponent: () => import('./account.page').then((m) => m.AccountPage),
  },
];

export const TOKENS_ROUTES: Route[] = [
  { path: '', title: 'API tokens · Arrbiter', loadComponent: () => import('./tokens.page').then((m) => m.TokensPage) },
];

export const ACCOUNTS_ROUTES: Route[] = [
  {
    path: '',
    title: 'Accounts · Arrbiter',
    canActivate: [roleGuard('owner')],
    loadComponent: () => import('./accounts.page').then((m) => m.AccountsPage),
  },
];
