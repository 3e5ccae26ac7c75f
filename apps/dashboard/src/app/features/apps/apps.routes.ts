import { Route } from '@angular/router';
import { unsavedChangesGuard } from '../../core/unsaved-changes.guard';
import { ProxyContext } from './proxy/proxy-context';

export const APPS_ROUTES: Route[] = [
  { path: '', title: 'Apps · Arrbiter', loadComponent: () => import('./apps.page').then((m) => m.AppsPage) },
  {
    path: ':appId',
    title: 'App · Arrbiter',
    loadComponent: () => import('./app-detail.page').then((m) => m.AppDetailPage),
  },
  {
    path: ':appId/proxies/:proxyId',
    providers: [ProxyContext],
    loadComponent: () => import('./proxy/proxy.page').then((m) => m.ProxyPage),
    children: [
      { path: '', pathMatch: 'full', redirectTo: 'connection' },
      {
        path: 'connection',
        title: 'Proxy · Arrbiter',
        loadComponent: () => import('./proxy/connection.tab').then((m) => m.ConnectionTab),
      },
      {
        path: 'endpoints',
        title: 'Endpoints · Arrbiter',
        canDeactivate: [unsavedChangesGuard],
        loadComponent: () => import('./proxy/endpoints.tab').then((m) => m.EndpointsTab),
      },
      {
        path: 'fit',
        title: 'Fit · Arrbiter',
        loadComponent: () => import('./proxy/fit.tab').then((m) => m.FitTab),
      },
      {
        path: 'usage',
        title: 'Usage · Arrbiter',
        loadComponent: () => import('./proxy/usage.tab').then((m) => m.UsageTab),
      },
      {
        path: 'history',
        title: 'History · Arrbiter',
        loadComponent: () => import('./proxy/history.tab').then((m) => m.HistoryTab),
      },
    ],
  },
];
