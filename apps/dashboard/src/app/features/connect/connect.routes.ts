import { Route } from '@angular/router';

export const CONNECT_ROUTES: Route[] = [
  {
    path: '',
    title: 'Connect a client · Arrbiter',
    loadComponent: () => import('./connect.page').then((m) => m.ConnectPage),
  },
];
