import { Route } from '@angular/router';
import { authGuard, choosePasswordGuard, signedOutGuard } from './core/auth.guard';

export const appRoutes: Route[] = [
  {
    path: 'sign-in',
    title: 'Sign in · Arrbiter',
    canActivate: [signedOutGuard],
    loadComponent: () => import('./features/sign-in/sign-in.page').then((m) => m.SignInPage),
  },
  {
    path: 'choose-password',
    title: 'Choose your own password · Arrbiter',
    canActivate: [choosePasswordGuard],
    loadComponent: () => import('./features/sign-in/choose-password.page').then((m) => m.ChoosePasswordPage),
  },
  {
    path: '',
    canActivate: [authGuard],
    loadComponent: () => import('./layout/shell.component').then((m) => m.ShellComponent),
    children: [
      { path: '', pathMatch: 'full', redirectTo: 'home' },
      { path: 'home', loadChildren: () => import('./features/home/home.routes').then((m) => m.HOME_ROUTES) },
      {
        path: 'services',
        loadChildren: () => import('./features/services/services.routes').then((m) => m.SERVICES_ROUTES),
      },
      { path: 'apps', loadChildren: () => import('./features/apps/apps.routes').then((m) => m.APPS_ROUTES) },
      {
        path: 'connect',
        loadChildren: () => import('./features/connect/connect.routes').then((m) => m.CONNECT_ROUTES),
      },
      {
        path: 'warnings',
        loadChildren: () => import('./features/warnings/warnings.routes').then((m) => m.WARNINGS_ROUTES),
      },
      {
        path: 'changes',
        loadChildren: () => import('./features/changes/changes.routes').then((m) => m.CHANGES_ROUTES),
      },
      {
        path: 'templates',
        loadChildren: () => import('./features/templates/templates.routes').then((m) => m.TEMPLATES_ROUTES),
      },
      {
        path: 'account',
        loadChildren: () => import('./features/staff/staff.routes').then((m) => m.ACCOUNT_ROUTES),
      },
      {
        path: 'tokens',
        loadChildren: () => import('./features/staff/staff.routes').then((m) => m.TOKENS_ROUTES),
      },
      {
        path: 'accounts',
        loadChildren: () => import('./features/staff/staff.routes').then((m) => m.ACCOUNTS_ROUTES),
      },
      {
        path: 'settings',
        title: 'Settings · Arrbiter',
        loadComponent: () => import('./features/settings/settings.page').then((m) => m.SettingsPage),
      },
    ],
  },
  { path: '**', redirectTo: '' },
];
