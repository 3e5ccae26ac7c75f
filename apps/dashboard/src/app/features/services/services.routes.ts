import { Route } from '@angular/router';

export const SERVICES_ROUTES: Route[] = [
  {
    path: '',
    title: 'Services · Arrbiter',
    loadComponent: () => import('./services.page').then((m) => m.ServicesPage),
  },
];
