import { signal } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';
import type { AdminRole, FitResult, KnownClientSummaryDto } from '@arrbiter/contracts';
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
});

const CLIENTS = [
  summary('maintainerr', 'Maintainerr', { radarr: 4, sonarr: 5 }),
  summary('bazarr', 'Bazarr', { radarr: 6 }),
  summary('unpackerr', 'Unpackerr', { lidarr: 2 }),
];

const maintainerrFit: FitResult = {
  client: 'maintainerr',
  clientName: 'Maintainerr',
  serviceType: 'radarr',
  calls: 4,
  covered: 1,
  missing: [
    {
      method: 'put',
      route: '/api/v3/movie/{id}',
      sample: '/api/v3/movie/123',
      source: { file: 'apps/server/src/radarr.helper.ts', function: 'RadarrApi.updateMovie' },
    },
    {
      method: 'get',
      route: '/api/v3/tag',
      sample: '/api/v3/tag',
      source: { file: 'apps/server/src/servarr-api.service.ts', function: 'ServarrApi.getTags' },
    },
    {
      method: 'get',
      route: '/api/v3/tag',
      sample: '/api/v3/tag?label=x',
      source: { file: 'src/tags.ts', function: 'tagByLabel', repository: 'https://github.com/lib/arr', commit: 'fff' },
    },
  ],
  unused: [{ method: 'delete', route: '/api/v3/movie/{id}' }],
};
const fitted: FitResult = { ...maintainerrFit, covered: 4, missing: [], unused: [] };

describe(FitTab.name, () => {
  let api: { fit: jest.Mock; setGrant: jest.Mock; applyFit: jest.Mock };
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
    };
    confirm = { ask: jest.fn().mockResolvedValue(true) };
    const context = {
      proxyId: signal('p1'),
      app: { value: signal<{ id: string; templateName: string | null } | undefined>(undefined) },
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
    const loadApp = () => context.app.value.set({ id: 'a1', templateName: template });
    return { element, settle, text, button, buttonByText, loadApp };
  }

  it("shows the fit of the template's client: how many calls, how many refused, where each is made", async () => {
    const { element, text } = await render();
    expect(api.fit).toHaveBeenCalledWith('p1', 'maintainerr');
    expect(text('[data-testid=fit-summary]')).toBe(
      'Maintainerr makes 4 calls to Radarr; this allowlist refuses 3 of them.',
    );
    // One row per grant that lets calls through, with every call it covers.
    const rows = [...element.querySelectorAll('tbody tr')];
    expect(rows.map((r) => r.getAttribute('data-testid'))).toEqual([
      'missing-put-/api/v3/movie/{id}',
      'missing-get-/api/v3/tag',
    ]);
    expect(text('[data-testid="missing-put-/api/v3/movie/{id}"] [data-label="Sent as, from"]')).toBe(
      '/api/v3/movie/123 from radarr.helper.ts (source, opens in a new tab) RadarrApi.updateMovie',
    );
    const links = [...element.querySelectorAll<HTMLAnchorElement>('tbody a')].map((a) => a.href);
    expect(links).toEqual([
      'https://github.com/example/maintainerr/blob/abc123/apps/server/src/radarr.helper.ts',
      'https://github.com/example/maintainerr/blob/abc123/apps/server/src/servarr-api.service.ts',
      'https://github.com/lib/arr/blob/fff/src/tags.ts',
    ]);
    expect(text('[data-testid="fit-unused-delete-/api/v3/movie/{id}"]')).toBe('DELETE /api/v3/movie/{id} Revoke');
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

  it('revokes one unused grant the same way', async () => {
    const { button, settle } = await render();
    button('Revoke DELETE /api/v3/movie/{id}')?.click();
    await settle();
    expect(api.setGrant).toHaveBeenCalledWith('p1', '/api/v3/movie/{id}', 'delete', false);
  });

  it('grants all after a confirmation, as one client-fit revision, and then says everything fits', async () => {
    const { buttonByText, settle, element, text } = await render();
    api.applyFit.mockResolvedValue({
      revision: { id: 'r2', summary: { text: '+2 grants' } },
      fit: { ...maintainerrFit, covered: 4, missing: [] },
    });
    buttonByText('Grant all')?.click();
    await settle();
    expect(confirm.ask).toHaveBeenCalledWith(
      expect.objectContaining({ title: 'Grant Maintainerr’s refused calls?', confirmLabel: 'Grant all' }),
    );
    expect(api.applyFit).toHaveBeenCalledWith('p1', { client: 'maintainerr', grantMissing: true, revokeUnused: false });
    expect(text('[role=status]')).toBe(
      'Granted 3 refused calls of Maintainerr (+2 grants): saved as one revision; the next call sees it. See the history',
    );
    expect(text('[data-testid=fit-summary]')).toBe(
      'Maintainerr makes 4 calls to Radarr; this allowlist lets all of them through.',
    );
    expect(element.querySelector('tbody')).toBeNull();

    api.applyFit.mockResolvedValue({ revision: null, fit: fitted });
    buttonByText('Revoke all unused')?.click();
    await settle();
    expect(api.applyFit).toHaveBeenLastCalledWith('p1', {
      client: 'maintainerr',
      grantMissing: false,
      revokeUnused: true,
    });
    expect(text('[role=status]')).toBe('Nothing to change: the allowlist already fits.');
    expect(text('[data-testid=fit-complete]')).toContain('Everything fits');
  });

  it('changes nothing when the confirmation is declined', async () => {
    const { buttonByText, settle } = await render();
    confirm.ask.mockResolvedValue(false);
    buttonByText('Revoke all unused')?.click();
    await settle();
    expect(api.applyFit).not.toHaveBeenCalled();
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
    expect(api.fit).toHaveBeenCalledWith('p1', 'bazarr');
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
    expect(api.fit).not.toHaveBeenCalledWith('p1', 'maintainerr');
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
  });
});
