import { Route } from '@angular/router';

export const TEMPLATES_ROUTES: Route[] = [
  {
    path: '',
    title: 'Templates · Arrbiter',
    loadComponent: () => import('./templates.page').then((m) => m.TemplatesPage),
  },
];
