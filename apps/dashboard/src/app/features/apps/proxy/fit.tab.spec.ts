import { signal } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';
import type { AdminRole, FitResult, KnownClientSummaryDto, RouteRiskDto } from '@arrbiter/contracts';
import { ConfirmService } from '@arrbiter/dashboard/ui';
import { AuthService } from '../../../core/auth.service';
import { KnownClientsApiService } from '../../known-clients/known-clients-api.service';
import { ProxiesApiService } from '../proxies-api.service';
import { FitTab } from './fit.tab';
import { ProxyContext } from './proxy-context';

const summary = (id: string, name: string, calls: Record<string, number>): KnownClientSummaryDto => ({
  id,
  name,
  projectUrl: `https://github.com/example/${id}`,
  source: { repository: `https://github.com/example/${id}`, ref: 'v1.2.3', commit: 'abc123' },
  templateNames: [id],
  calls,
  instructions: false,
});
const SAFE: RouteRiskDto = {
  sensitive: false,
  destructive: false,
  purpose: 'read library',
  reason: 'Hands out no secrets, does not control the server and deletes nothing.',
};
const COMMAND: RouteRiskDto = {
  sensitive: true,
  destructive: false,
  purpose: 'system',
  reason: 'Runs server commands (backups, updates, scans and every other task).',
};

const CLIENTS = [
  summary('maintainerr', 'Maintainerr', { radarr: 4, sonarr: 5 }),
  summary('bazarr', 'Bazarr', { radarr: 6 }),
  summary('unpackerr', 'Unpackerr', { lidarr: 2 }),
];

const maintainerrFit: FitResult = {
  client: 'maintainerr',
  clientName: 'Maintainerr',
  serviceType: 'radarr',
  calls: 5,
  covered: 1,
  missing: [
    {
      method: 'put',
      route: '/api/v3/movie/{id}',
      sample: '/api/v3/movie/123',
      source: { file: 'apps/server/src/radarr.helper.ts', function: 'RadarrApi.updateMovie' },
      risk: { ...SAFE, purpose: 'edit library' },
    },
    {
      method: 'get',
      route: '/api/v3/tag',
      sample: '/api/v3/tag',
      source: { file: 'apps/server/src/servarr-api.service.ts', function: 'ServarrApi.getTags' },
      risk: SAFE,
    },
    {
      method: 'get',
      route: '/api/v3/tag',
      sample: '/api/v3/tag?label=x',
      source: { file: 'src/tags.ts', function: 'tagByLabel', repository: 'https://github.com/lib/arr', commit: 'fff' },
      risk: SAFE,
    },
    {
      method: 'post',
      route: '/api/v3/command',
      sample: '/api/v3/command',
      source: { file: 'apps/server/src/radarr.helper.ts', function: 'RadarrApi.runCommand' },
      risk: COMMAND,
    },
  ],
  unused: [
    {
      method: 'delete',
      route: '/api/v3/movie/{id}',
      risk: { sensitive: false, destructive: true, purpose: 'delete', reason: 'Deletes data on the server.' },
      lastSeen: null,
    },
  ],
};
const fitted: FitResult = { ...maintainerrFit, covered: 4, missing: [], unused: [] };

describe(FitTab.name, () => {
  let api: { fit: jest.Mock; setGrant: jest.Mock; applyFit: jest.Mock; revisions: jest.Mock; undoRevision: jest.Mock };
  let confirm: { ask: jest.Mock };

  async function render({
    template = 'maintainerr' as string | null,
    role = 'editor' as AdminRole,
    /** The app is not loaded yet when the tab opens. */
    appLater = false,
  } = {}) {
    api = {
      fit: jest
        .fn()
        .mockImplementation(async (_id: string, client: string) =>
          client === 'maintainerr' ? maintainerrFit : { ...fitted, client, clientName: 'Bazarr', calls: 6, covered: 6 },
        ),
      setGrant: jest.fn().mockResolvedValue({}),
      applyFit: jest.fn(),
      revisions: jest.fn().mockResolvedValue({
        items: [{ id: 'r9', proxyId: 'p1', kind: 'manual', summary: { text: '+1 grant', added: [], removed: [] } }],
        nextCursor: null,
      }),
      undoRevision: jest.fn().mockResolvedValue({ id: 'r5', proxyId: 'p1', summary: { text: '+2 grants' } }),
    };
    confirm = { ask: jest.fn().mockResolvedValue(true) };
    const context = {
      proxyId: signal('p1'),
      app: {
        value: signal<{ id: string; templateName: string | null; knownClientId?: string | null } | undefined>(
          undefined,
        ),
      },
      service: { value: signal({ id: 's1', type: 'radarr' }) },
    };
    TestBed.configureTestingModule({
      imports: [FitTab],
      providers: [
        provideRouter([]),
        { provide: ProxiesApiService, useValue: api },
        { provide: KnownClientsApiService, useValue: { list: jest.fn().mockResolvedValue(CLIENTS) } },
        { provide: ProxyContext, useValue: context },
        { provide: ConfirmService, useValue: confirm },
        {
          provide: AuthService,
          useValue: { can: (required: AdminRole) => role !== 'viewer' || required === 'viewer' },
        },
      ],
    });
    if (!appLater) context.app.value.set({ id: 'a1', templateName: template });
    const fixture = TestBed.createComponent(FitTab);
    const element = fixture.nativeElement as HTMLElement;
    const settle = async () => {
      for (let i = 0; i < 3; i += 1) {
        fixture.detectChanges();
        await fixture.whenStable();
        await new Promise((resolve) => setTimeout(resolve));
      }
      fixture.detectChanges();
    };
    await settle();
    const text = (selector: string) => element.querySelector(selector)?.textContent?.replace(/\s+/g, ' ').trim();
    const button = (label: string) => element.querySelector<HTMLButtonElement>(`button[aria-label="${label}"]`);
    const buttonByText = (label: string) =>
      [...element.querySelectorAll<HTMLButtonElement>('button')].find((b) => b.textContent?.trim() === label);
    const loadApp = (more: { knownClientId?: string } = {}) =>
      context.app.value.set({ id: 'a1', templateName: template, ...more });
    return { element, settle, text, button, buttonByText, loadApp };
  }

  it("shows the fit of the template's client: how many calls, how many refused, where each is made", async () => {
    const { element, text } = await render();
    expect(api.fit).toHaveBeenCalledWith('p1', 'maintainerr', 30);
    expect(text('[data-testid=fit-summary]')).toBe(
      'Maintainerr makes 5 calls to Radarr; this allowlist refuses 4 of them.',
    );
    // One row per grant that lets calls through, with every call it covers.
    const rows = [...element.querySelectorAll('tbody tr')];
    expect(rows.map((r) => r.getAttribute('data-testid'))).toEqual([
      'missing-put-/api/v3/movie/{id}',
      'missing-get-/api/v3/tag',
      'missing-post-/api/v3/command',
      'fit-unused-delete-/api/v3/movie/{id}',
    ]);
    // A sensitive call is badged with the reason, and unticked.
    expect(text('[data-testid="missing-post-/api/v3/command"] [data-label="Route"]')).toBe(
      '/api/v3/command Sensitive Runs server commands (backups, updates, scans and every other task).',
    );
    expect(element.querySelectorAll('[data-testid=sensitive]')).toHaveLength(1);
    const box = element.querySelector<HTMLInputElement>('[data-testid="missing-post-/api/v3/command"] input');
    expect(box?.checked).toBe(false);
    expect(box?.closest('label')?.textContent?.replace(/\s+/g, ' ').trim()).toBe(
      'Include POST /api/v3/command in Grant missing',
    );
    expect(text('[data-testid="missing-put-/api/v3/movie/{id}"] [data-label="Sent as, from"]')).toBe(
      '/api/v3/movie/123 from radarr.helper.ts (source, opens in a new tab) RadarrApi.updateMovie',
    );
    const links = [...element.querySelectorAll<HTMLAnchorElement>('tbody a')].map((a) => a.href);
    expect(links).toEqual([
      'https://github.com/example/maintainerr/blob/abc123/apps/server/src/radarr.helper.ts',
      'https://github.com/example/maintainerr/blob/abc123/apps/server/src/servarr-api.service.ts',
      'https://github.com/lib/arr/blob/fff/src/tags.ts',
      'https://github.com/example/maintainerr/blob/abc123/apps/server/src/radarr.helper.ts',
    ]);
    expect(text('[data-testid="fit-unused-delete-/api/v3/movie/{id}"] [data-label="Route"]')).toBe(
      '/api/v3/movie/{id} Destructive',
    );
    expect(text('[data-testid="fit-unused-delete-/api/v3/movie/{id}"] [data-label="Last call"]')).toBe('none kept');
    expect(element.querySelector<HTMLAnchorElement>('.hint a')?.href).toBe(
      'https://github.com/example/maintainerr/tree/abc123',
    );
    // The picker offers the clients that call Radarr.
    const options = [...element.querySelectorAll<HTMLOptionElement>('#fit-client option')];
    expect(options.map((o) => [o.textContent?.trim(), o.selected])).toEqual([
      ['Bazarr', false],
      ['Maintainerr', true],
    ]);
  });

  it('grants one refused call through the allowlist editor, then shows the fit again', async () => {
    const { button, settle, element } = await render();
    api.fit.mockResolvedValueOnce({ ...maintainerrFit, covered: 2, missing: maintainerrFit.missing.slice(1) });
    button('Grant PUT /api/v3/movie/{id}')?.click();
    await settle();
    expect(api.setGrant).toHaveBeenCalledWith('p1', '/api/v3/movie/{id}', 'put', true);
    expect(api.fit).toHaveBeenCalledTimes(2);
    expect(element.querySelector('[role=status]')?.textContent).toContain(
      'Granted PUT /api/v3/movie/{id}: saved as a new revision',
    );
    expect(element.querySelector('[data-testid="missing-put-/api/v3/movie/{id}"]')).toBeNull();
  });

  it('asks before granting one sensitive call, saying why it is sensitive', async () => {
    const { button, settle } = await render();
    confirm.ask.mockResolvedValueOnce(false);
    button('Grant POST /api/v3/command')?.click();
    await settle();
    expect(confirm.ask).toHaveBeenCalledWith(
      expect.objectContaining({
        message:
          'This opens POST /api/v3/command: Runs server commands (backups, updates, scans and every other task).',
        danger: true,
      }),
    );
    expect(api.setGrant).not.toHaveBeenCalled();
    button('Grant POST /api/v3/command')?.click();
    await settle();
    expect(api.setGrant).toHaveBeenCalledWith('p1', '/api/v3/command', 'post', true);
  });

  it('grants the missing calls that are not sensitive, plus the sensitive ones ticked, as one client-fit revision', async () => {
    const { buttonByText, settle, element, text } = await render();
    api.applyFit.mockResolvedValue({
      revision: { id: 'r2', summary: { text: '+2 grants' } },
      fit: { ...maintainerrFit, covered: 4, missing: maintainerrFit.missing.slice(3) },
    });
    // Unticked, the sensitive call is left out.
    buttonByText('Grant missing (2)')?.click();
    await settle();
    expect(confirm.ask).toHaveBeenCalledWith(
      expect.objectContaining({
        title: 'Grant Maintainerr’s refused calls?',
        confirmLabel: 'Grant missing',
        message: expect.stringContaining('1 sensitive call stays refused'),
        items: [],
      }),
    );
    expect(api.applyFit).toHaveBeenCalledWith('p1', { client: 'maintainerr', grantMissing: true, unusedDays: 30 });
    expect(text('[role=status]')).toBe(
      'Granted Maintainerr’s refused calls (+2 grants): saved as one revision; the next call sees it. See the history Undo',
    );
    expect(text('[data-testid=fit-summary]')).toBe(
      'Maintainerr makes 5 calls to Radarr; this allowlist refuses 1 of them.',
    );

    // Ticked, it is named in include.sensitive.
    const box = element.querySelector<HTMLInputElement>('[data-testid="missing-post-/api/v3/command"] input');
    (box as HTMLInputElement).checked = true;
    box?.dispatchEvent(new Event('change'));
    await settle();
    api.applyFit.mockResolvedValue({ revision: { id: 'r3', summary: { text: '+1 grant' } }, fit: fitted });
    buttonByText('Grant missing (1)')?.click();
    await settle();
    expect(confirm.ask).toHaveBeenLastCalledWith(
      expect.objectContaining({ items: ['POST /api/v3/command (sensitive)'] }),
    );
    expect(api.applyFit).toHaveBeenLastCalledWith('p1', {
      client: 'maintainerr',
      grantMissing: true,
      include: { sensitive: [{ method: 'post', route: '/api/v3/command' }] },
      unusedDays: 30,
    });
    expect(text('[data-testid=fit-complete]')).toContain('Everything fits');
    expect(element.querySelector('tbody')).toBeNull();
  });

  it('revokes exactly the grants unused for the period chosen, after a confirmation that lists them', async () => {
    const { buttonByText, settle, element, text } = await render();
    const select = element.querySelector<HTMLSelectElement>('#fit-period') as HTMLSelectElement;
    expect([...select.options].map((o) => o.textContent?.trim())).toEqual(['7 days', '30 days', '90 days']);
    const seen = '2026-11-01T10:00:00.000Z';
    api.fit.mockResolvedValue({
      ...maintainerrFit,
      unused: [
        { ...maintainerrFit.unused[0], lastSeen: seen },
        { method: 'get', route: '/api/v3/calendar', risk: SAFE, lastSeen: null },
      ],
    });
    select.value = '90';
    select.dispatchEvent(new Event('change'));
    await settle();
    expect(api.fit).toHaveBeenLastCalledWith('p1', 'maintainerr', 90);
    expect(
      element.querySelector('[data-testid="fit-unused-delete-/api/v3/movie/{id}"] time')?.getAttribute('datetime'),
    ).toBe(seen);
    expect(text('[data-testid="fit-unused-get-/api/v3/calendar"] [data-label="Last call"]')).toBe('none kept');

    api.applyFit.mockResolvedValue({
      revision: { id: 'r4', proxyId: 'p1', summary: { text: '-2 grants' } },
      fit: fitted,
    });
    buttonByText('Revoke 2 unused…')?.click();
    await settle();
    expect(confirm.ask).toHaveBeenCalledWith(
      expect.objectContaining({
        title: 'Revoke 2 unused grants?',
        danger: true,
        items: ['DELETE /api/v3/movie/{id}', 'GET /api/v3/calendar'],
        message: expect.stringContaining('not called through this proxy in the last 90 days'),
      }),
    );
    expect(api.applyFit).toHaveBeenCalledWith('p1', {
      client: 'maintainerr',
      grantMissing: false,
      revoke: [
        { method: 'delete', route: '/api/v3/movie/{id}' },
        { method: 'get', route: '/api/v3/calendar' },
      ],
      unusedDays: 90,
    });
    expect(text('[role=status]')).toBe(
      'Revoked 2 unused grants (-2 grants): saved as one revision; the next call sees it. See the history Undo',
    );
    // Undo gives back what that revision revoked.
    const asked = api.fit.mock.calls.length;
    element.querySelector<HTMLButtonElement>('[data-testid="grant-undo"]')?.click();
    await settle();
    expect(api.undoRevision).toHaveBeenCalledWith('p1', 'r4');
    // Then the fit is read again, against the allowlist as it is now.
    expect(api.fit.mock.calls.length).toBeGreaterThan(asked);
  });

  it('changes nothing when the confirmation is declined', async () => {
    const { buttonByText, settle } = await render();
    confirm.ask.mockResolvedValue(false);
    buttonByText('Revoke 1 unused…')?.click();
    await settle();
    buttonByText('Grant missing (2)')?.click();
    await settle();
    expect(confirm.ask).toHaveBeenCalledTimes(2);
    expect(api.applyFit).not.toHaveBeenCalled();
  });

  it("defaults to the app's known client when it was connected as one", async () => {
    const { settle, loadApp } = await render({ template: null, appLater: true });
    loadApp({ knownClientId: 'bazarr' });
    await settle();
    expect(api.fit).toHaveBeenCalledWith('p1', 'bazarr', 30);
  });

  it("says when the app's template matches no known client, and shows another client's fit when one is chosen", async () => {
    const { element, settle, text } = await render({ template: 'nzb360' });
    expect(api.fit).not.toHaveBeenCalled();
    expect(text('[data-testid=fit-empty]')).toContain('The app’s template “nzb360” matches no known client.');
    const select = element.querySelector<HTMLSelectElement>('#fit-client') as HTMLSelectElement;
    expect(select.options[0].textContent?.trim()).toBe('Choose a client…');
    select.value = 'bazarr';
    select.dispatchEvent(new Event('change'));
    await settle();
    expect(api.fit).toHaveBeenCalledWith('p1', 'bazarr', 30);
    expect(text('[data-testid=fit-summary]')).toBe(
      'Bazarr makes 6 calls to Radarr; this allowlist lets all of them through.',
    );
    expect(text('[data-testid=fit-complete]')).toBe(
      'Everything fits: the allowlist grants every call Bazarr makes, and nothing else.',
    );
    expect(element.querySelector('[data-testid=fit-empty]')).toBeNull();
  });

  it('keeps the client the administrator picked when the app loads afterwards', async () => {
    const { element, settle, text, loadApp } = await render({ appLater: true });
    const select = element.querySelector<HTMLSelectElement>('#fit-client') as HTMLSelectElement;
    select.value = 'bazarr';
    select.dispatchEvent(new Event('change'));
    await settle();
    // The app's template names Maintainerr: it would be the default, but Bazarr was picked.
    loadApp();
    await settle();
    expect(select.value).toBe('bazarr');
    expect(text('[data-testid=fit-summary]')).toBe(
      'Bazarr makes 6 calls to Radarr; this allowlist lets all of them through.',
    );
    expect(api.fit).not.toHaveBeenCalledWith('p1', 'maintainerr', 30);
  });

  it('asks nothing when the chosen client makes no call to the service type (the server would answer 422)', async () => {
    const { text } = await render({ template: 'unpackerr' });
    expect(api.fit).not.toHaveBeenCalled();
    expect(text('[data-testid=fit-empty]')).toContain(
      'Unpackerr makes no call to Radarr that the catalogue knows of: there is nothing to fit.',
    );
  });

  it('says when the app has no template', async () => {
    const { text } = await render({ template: null });
    expect(text('[data-testid=fit-empty]')).toContain('The app has no template');
  });

  it('shows a viewer the fit without any button that changes it', async () => {
    const { element } = await render({ role: 'viewer' });
    expect(element.querySelector('[data-testid=fit-summary]')).not.toBeNull();
    expect(element.querySelectorAll('button')).toHaveLength(0);
    expect(element.querySelectorAll('input[type=checkbox]')).toHaveLength(0);
    expect(element.querySelectorAll('[data-testid=sensitive]')).toHaveLength(1);
  });
});
