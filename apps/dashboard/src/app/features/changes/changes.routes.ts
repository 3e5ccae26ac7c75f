import { Route } from '@angular/router';

export const CHANGES_ROUTES: Route[] = [
  {
    path: '',
    title: 'Recent changes · Arrbiter',
    loadComponent: () => import('./changes.page').then((m) => m.ChangesPage),
  },
];
