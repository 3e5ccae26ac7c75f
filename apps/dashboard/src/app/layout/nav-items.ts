import type { AdminRole } from '@arrbiter/contracts';

export interface NavItem {
  path: string;
  label: string;
  icon: string;
  /** What the section is for. */
  summary: string;
  /** Shown only to this role and above (default: everyone). */
  minRole?: AdminRole;
}

/** The dashboard's sections, in navigation order. */
export const NAV_ITEMS: readonly NavItem[] = [
  {
    path: 'home',
    label: 'Home',
    icon: '⌂',
    summary: 'Services, apps, recent warnings and learning proxies at a glance.',
  },
  {
    path: 'services',
    label: 'Services',
    icon: '▣',
    summary: 'The Sonarr, Radarr, Lidarr, Prowlarr, Readarr and Whisparr instances Arrbiter guards.',
  },
  {
    path: 'apps',
    label: 'Apps',
    icon: '◫',
    summary: 'One app per client integration, each with its own keys and allowlists.',
  },
  { path: 'warnings', label: 'Warnings', icon: '⚠', summary: 'Refused calls, ready to be granted or dismissed.' },
  {
    path: 'changes',
    label: 'Recent changes',
    icon: '↺',
    summary: 'Every change made by an administrator, newest first.',
  },
  { path: 'templates', label: 'Templates', icon: '❏', summary: 'Community allowlist templates and their repository.' },
  {
    path: 'settings',
    label: 'Settings',
    icon: '⚙',
    summary: 'What new proxies start with, and notifications: webhooks for Discord, ntfy or your own tools.',
  },
  {
    path: 'tokens',
    label: 'API tokens',
    icon: '◈',
    summary: 'Tokens for scripts and automation, each with a role.',
  },
  {
    path: 'accounts',
    label: 'Accounts',
    icon: '☺',
    summary: 'Who may sign in, and as owner, editor or viewer.',
    minRole: 'owner',
  },
];
