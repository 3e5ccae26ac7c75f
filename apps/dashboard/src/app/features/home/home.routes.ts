import { Route } from '@angular/router';

export const HOME_ROUTES: Route[] = [
  { path: '', title: 'Home · Arrbiter', loadComponent: () => import('./home.page').then((m) => m.HomePage) },
];
