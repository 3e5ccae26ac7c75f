import { Route } from '@angular/router';
import { authGuard, signedOutGuard } from './core/auth.guard';
import { NAV_ITEMS } from './layout/nav-items';

export const appRoutes: Route[] = [
  {
    path: 'sign-in',
    title: 'Sign in · Arrbiter',
    canActivate: [signedOutGuard],
    loadComponent: () => import('./features/sign-in/sign-in.page').then((m) => m.SignInPage),
  },
  {
    path: '',
    canActivate: [authGuard],
    loadComponent: () => import('./layout/shell.component').then((m) => m.ShellComponent),
    children: [
      { path: '', pathMatch: 'full', redirectTo: 'home' },
      ...NAV_ITEMS.map((item) => ({
        path: item.path,
        title: `${item.label} · Arrbiter`,
        loadComponent: () => import('./features/section/section.page').then((m) => m.SectionPage),
        data: { title: item.label, summary: item.summary },
      })),
    ],
  },
  { path: '**', redirectTo: '' },
];
