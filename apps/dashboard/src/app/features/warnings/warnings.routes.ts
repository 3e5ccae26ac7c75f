import { Route } from '@angular/router';

export const WARNINGS_ROUTES: Route[] = [
  {
    path: '',
    title: 'Warnings · Arrbiter',
    loadComponent: () => import('./warnings.page').then((m) => m.WarningsPage),
  },
];
