import { HttpErrorResponse } from '@angular/common/http';
import { signal } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';
import type { AdminRole, AllowlistResponse, EndpointsResponse, RouteRiskDto } from '@arrbiter/contracts';
import { ConfirmService } from '@arrbiter/dashboard/ui';
import { AuthService } from '../../../core/auth.service';
import { ProxiesApiService } from '../proxies-api.service';
import type { EndpointRow } from './endpoint-rows';
import { EndpointsTab, grantRisk, rowRisk } from './endpoints.tab';
import { ProxyContext } from './proxy-context';

const HARMLESS: RouteRiskDto = { sensitive: false, destructive: false, purpose: 'read library', reason: 'Reads.' };
/** As the server says it (`routeRisk`), in words the name rule could not guess. */
const BACKUP: RouteRiskDto = {
  sensitive: true,
  destructive: false,
  purpose: 'system',
  reason: 'Hands out a backup of the whole configuration, every key with it.',
};

describe(EndpointsTab.name, () => {
  const allowlist: AllowlistResponse = {
    template: { '/api/v3/movie': ['get'] },
    overrides: { '/api/v3/system/backup': [] },
    effective: { '/api/v3/movie': ['get'] },
  };
  const catalog: EndpointsResponse = {
    serviceType: 'radarr',
    templateId: 't1',
    tags: ['Movie', 'System'],
    items: [
      {
        path: '/api/v3/movie',
        tags: ['Movie'],
        inCatalog: true,
        sensitive: false,
        override: null,
        methods: [
          { method: 'get', template: true, override: null, effective: true, risk: HARMLESS },
          { method: 'post', template: false, override: null, effective: false, summary: 'Add a movie', risk: HARMLESS },
        ],
      },
      {
        path: '/api/v3/system/backup',
        tags: ['System'],
        inCatalog: true,
        sensitive: true,
        override: [],
        methods: [{ method: 'get', template: false, override: false, effective: false, risk: BACKUP }],
      },
    ],
  };
  let api: {
    allowlist: jest.Mock;
    endpoints: jest.Mock;
    saveConfig: jest.Mock;
    revisions: jest.Mock;
    undoRevision: jest.Mock;
  };
  let ask: jest.Mock;

  async function render(endpoints: () => Promise<EndpointsResponse>, role: AdminRole = 'editor') {
    api = {
      allowlist: jest.fn().mockResolvedValue(allowlist),
      endpoints: jest.fn().mockImplementation(endpoints),
      saveConfig: jest.fn(),
      revisions: jest.fn().mockResolvedValue({
        items: [{ id: 'r7', proxyId: 'p1', summary: { text: '+1 grant', added: [], removed: [] } }],
        nextCursor: null,
      }),
      undoRevision: jest.fn().mockResolvedValue({ id: 'r10', proxyId: 'p1', summary: { text: '−1 grant' } }),
    };
    ask = jest.fn().mockResolvedValue(false);
    const context = {
      proxyId: signal('p1'),
      proxy: { value: signal({ id: 'p1', active: true }) },
    };
    TestBed.configureTestingModule({
      imports: [EndpointsTab],
      providers: [
        provideRouter([]),
        { provide: ProxiesApiService, useValue: api },
        { provide: ProxyContext, useValue: context },
        { provide: ConfirmService, useValue: { ask } },
        {
          provide: AuthService,
          useValue: { can: (required: AdminRole) => role !== 'viewer' || required === 'viewer' },
        },
      ],
    });
    const fixture = TestBed.createComponent(EndpointsTab);
    const element = fixture.nativeElement as HTMLElement;
    /** Lets the mocked calls answer and the view catch up. */
    const settle = async () => {
      fixture.detectChanges();
      await fixture.whenStable();
      await new Promise((resolve) => setTimeout(resolve));
      fixture.detectChanges();
      await fixture.whenStable();
    };
    await settle();
    const type = async (selector: string, value: string) => {
      const input = element.querySelector<HTMLInputElement>(selector) as HTMLInputElement;
      input.value = value;
      input.dispatchEvent(new Event('input'));
      await settle();
    };
    const checkbox = (label: string) => element.querySelector<HTMLInputElement>(`input[aria-label="${label}"]`);
    const button = (text: string) =>
      [...element.querySelectorAll('button')].find((b) => b.textContent?.trim() === text) as HTMLButtonElement;
    return { fixture, element, settle, type, checkbox, button };
  }

  it('shows the catalog by tag, marks sensitive and denied paths, and counts a draft', async () => {
    const { fixture, element, settle, type, checkbox, button } = await render(() => Promise.resolve(catalog));
    await type('#endpoint-search', '/api/v3');
    expect(element.textContent).toContain('Movie');
    expect(element.textContent).toContain('Sensitive');
    expect(element.textContent).toContain('Denied');
    expect(checkbox('GET /api/v3/movie')?.checked).toBe(true);
    expect(checkbox('POST /api/v3/movie')?.checked).toBe(false);
    expect(button('Save configuration').disabled).toBe(true);
    expect(fixture.componentInstance.hasUnsavedChanges()).toBe(false);

    checkbox('POST /api/v3/movie')?.dispatchEvent(new Event('change'));
    checkbox('GET /api/v3/movie')?.dispatchEvent(new Event('change'));
    await settle();
    expect(element.querySelector('[data-testid=draft-added]')?.textContent).toContain('+1');
    expect(element.querySelector('[data-testid=draft-removed]')?.textContent).toContain('−1');
    expect(fixture.componentInstance.hasUnsavedChanges()).toBe(true);

    button('Reset to template').click();
    await settle();
    // The backup path's saved deny stays; only the movie path was reset.
    expect(fixture.componentInstance.hasUnsavedChanges()).toBe(false);
  });

  it('shows a viewer the grants read only: no draft, no save, no path actions', async () => {
    const { element, type, checkbox, button } = await render(() => Promise.resolve(catalog), 'viewer');
    await type('#endpoint-search', '/api/v3');
    expect(checkbox('GET /api/v3/movie')?.checked).toBe(true);
    expect(checkbox('GET /api/v3/movie')?.disabled).toBe(true);
    expect(button('Save configuration')).toBeUndefined();
    expect(button('Deny path')).toBeUndefined();
    expect(element.querySelector('#custom-path')).toBeNull();
  });

  it('saves the full overrides map with the active state', async () => {
    const { fixture, element, settle, type, checkbox, button } = await render(() => Promise.resolve(catalog));
    await type('#endpoint-search', 'movie');
    checkbox('POST /api/v3/movie')?.dispatchEvent(new Event('change'));
    await settle();
    api.saveConfig.mockResolvedValue({
      template: allowlist.template,
      overrides: { '/api/v3/system/backup': [], '/api/v3/movie': ['get', 'post'] },
      effective: { '/api/v3/movie': ['get', 'post'] },
      revisionId: 'r9',
    });
    button('Save configuration').click();
    await settle();
    expect(api.saveConfig).toHaveBeenCalledWith('p1', {
      overrides: { '/api/v3/system/backup': [], '/api/v3/movie': ['get', 'post'] },
      active: true,
    });
    expect(element.textContent).toContain('Configuration saved: 1 grant added, 0 removed.');
    expect(fixture.componentInstance.hasUnsavedChanges()).toBe(false);
    // Undo takes back the revision the save answered (r9), not whichever is newest when it asks (r7).
    (element.querySelector('[data-testid="grant-undo"]') as HTMLButtonElement).click();
    await settle();
    expect(api.undoRevision).toHaveBeenCalledWith('p1', 'r9');
    expect(api.revisions).not.toHaveBeenCalled();
    expect(element.textContent).toContain('Undone. −1 grant');
  });

  it('takes a grant’s risk from the server, and by the name rule only where the catalog says nothing', () => {
    const row = (path: string, risks: Record<string, RouteRiskDto>): [string, EndpointRow] => [
      path,
      { path, tag: 'System', inCatalog: true, sensitive: false, methods: Object.keys(risks), summaries: {}, risks },
    ];
    const command: RouteRiskDto = { ...BACKUP, purpose: 'system', reason: 'Runs any command.' };
    const rows = new Map([
      row('/api/v3/system/backup', { get: BACKUP }),
      row('/api/v3/command', { get: HARMLESS, post: command }),
      row('/api/v3/movie', { get: HARMLESS }),
    ]);
    expect(grantRisk({ method: 'get', path: '/api/v3/system/backup' }, rows)).toBe(BACKUP);
    // Not guessable from its name: only the server knows POST /api/v3/command runs anything.
    expect(grantRisk({ method: 'post', path: '/api/v3/command' }, rows)).toBe(command);
    expect(grantRisk({ method: 'get', path: '/api/v3/command' }, rows)).toBeNull();
    expect(grantRisk({ method: 'get', path: '/api/v3/movie' }, rows)).toBeNull();
    // Paths the catalog does not know: every DELETE, a route ending in editor or bulk.
    expect(grantRisk({ method: 'delete', path: '/api/v3/movie/{id}' }, rows)?.destructive).toBe(true);
    expect(grantRisk({ method: 'put', path: '/api/v3/movie/editor' }, rows)?.destructive).toBe(true);
    expect(grantRisk({ method: 'get', path: '/api/v3/other' }, rows)).toBeNull();
  });

  it('badges a row by the server’s risk of its methods, with the server’s reason', async () => {
    const { element, type } = await render(() => Promise.resolve(catalog));
    await type('#endpoint-search', '/api');
    const row = (path: string) => element.querySelector(`li[data-path="${path}"]`);
    expect(row('/api/v3/system/backup')?.querySelector('[data-testid="row-risk"]')?.textContent?.trim()).toBe(
      'Sensitive',
    );
    expect(row('/api/v3/system/backup')?.querySelector('.hint')?.textContent).toBe(`GET: ${BACKUP.reason}`);
    expect(row('/api/v3/movie')?.querySelector('[data-testid="row-risk"]')).toBeNull();
    expect(
      rowRisk({
        path: '/api/v3/command',
        tag: 'Command',
        inCatalog: true,
        sensitive: false,
        methods: ['get', 'post'],
        summaries: {},
        risks: { get: HARMLESS, post: { ...BACKUP, sensitive: false, destructive: true, reason: 'Runs anything.' } },
      }),
    ).toEqual({ level: 'destructive', methods: ['POST'], reason: 'Runs anything.' });
  });

  it('asks before saving a sensitive grant, in the server’s words, and saves nothing when refused', async () => {
    const { element, settle, type, checkbox, button } = await render(() => Promise.resolve(catalog));
    await type('#endpoint-search', 'backup');
    checkbox('GET /api/v3/system/backup')?.dispatchEvent(new Event('change'));
    await settle();
    button('Save configuration').click();
    await settle();
    expect(ask).toHaveBeenCalledWith(
      expect.objectContaining({
        items: [`GET /api/v3/system/backup (Sensitive): ${BACKUP.reason}`],
        confirmLabel: 'Save',
      }),
    );
    expect(api.saveConfig).not.toHaveBeenCalled();
    expect(element.textContent).not.toContain('Configuration saved');
  });

  it('shows the server’s message when a save fails and keeps the draft', async () => {
    const { fixture, element, settle, type, checkbox, button } = await render(() => Promise.resolve(catalog));
    await type('#endpoint-search', 'movie');
    checkbox('POST /api/v3/movie')?.dispatchEvent(new Event('change'));
    await settle();
    api.saveConfig.mockRejectedValue(
      new HttpErrorResponse({ status: 400, error: { message: ['overrides.x must be a list'] } }),
    );
    button('Save configuration').click();
    await settle();
    expect(element.querySelector('[role=alert]')?.textContent).toContain('overrides.x must be a list');
    expect(fixture.componentInstance.hasUnsavedChanges()).toBe(true);
  });

  it('falls back to the allowlist’s paths without a catalog, and adds custom paths', async () => {
    const { element, settle, type, checkbox, button } = await render(() =>
      Promise.reject(new HttpErrorResponse({ status: 404 })),
    );
    expect(element.textContent).toContain('The endpoint catalog is not available');
    await type('#custom-path', 'no-slash');
    element.querySelector<HTMLFormElement>('form.custom')?.dispatchEvent(new Event('submit'));
    await settle();
    expect(element.querySelector('[role=alert]')?.textContent).toContain('starts with /');

    await type('#custom-path', '/api/v3/custom/{id}');
    element.querySelector<HTMLFormElement>('form.custom')?.dispatchEvent(new Event('submit'));
    await settle();
    expect(element.textContent).toContain('Not in catalog');
    checkbox('DELETE /api/v3/custom/{id}')?.dispatchEvent(new Event('change'));
    await settle();
    expect(element.querySelector('[data-testid=draft-added]')?.textContent).toContain('+1');
    expect(button('Save configuration').disabled).toBe(false);
  });
});
