import { HttpErrorResponse } from '@angular/common/http';
import { signal } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';
import type { AdminRole, AllowlistResponse, EndpointsResponse } from '@arrbiter/contracts';
import { AuthService } from '../../../core/auth.service';
import { ProxiesApiService } from '../proxies-api.service';
import { EndpointsTab, grantRisk } from './endpoints.tab';
import { ProxyContext } from './proxy-context';

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
          { method: 'get', template: true, override: null, effective: true },
          { method: 'post', template: false, override: null, effective: false, summary: 'Add a movie' },
        ],
      },
      {
        path: '/api/v3/system/backup',
        tags: ['System'],
        inCatalog: true,
        sensitive: true,
        override: [],
        methods: [{ method: 'get', template: false, override: false, effective: false }],
      },
    ],
  };
  let api: { allowlist: jest.Mock; endpoints: jest.Mock; saveConfig: jest.Mock; revisions: jest.Mock };

  async function render(endpoints: () => Promise<EndpointsResponse>, role: AdminRole = 'editor') {
    api = {
      allowlist: jest.fn().mockResolvedValue(allowlist),
      endpoints: jest.fn().mockImplementation(endpoints),
      saveConfig: jest.fn(),
      revisions: jest.fn().mockResolvedValue({
        items: [{ id: 'r7', proxyId: 'p1', summary: { text: '+1 grant', added: [], removed: [] } }],
        nextCursor: null,
      }),
    };
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
    });
    button('Save configuration').click();
    await settle();
    expect(api.saveConfig).toHaveBeenCalledWith('p1', {
      overrides: { '/api/v3/system/backup': [], '/api/v3/movie': ['get', 'post'] },
      active: true,
    });
    expect(element.textContent).toContain('Configuration saved: 1 grant added, 0 removed.');
    // The save's revision, for Undo.
    expect(api.revisions).toHaveBeenCalledWith('p1', { limit: 1 });
    expect(element.querySelector('[data-testid="grant-undo"]')).not.toBeNull();
    expect(fixture.componentInstance.hasUnsavedChanges()).toBe(false);
  });

  it('marks routes by their names: sensitive and destructive grants ask before a save', () => {
    const sensitive = new Set(['/api/v3/system/backup']);
    expect(grantRisk({ method: 'get', path: '/api/v3/system/backup' }, sensitive)?.sensitive).toBe(true);
    expect(grantRisk({ method: 'delete', path: '/api/v3/movie/{id}' }, sensitive)?.destructive).toBe(true);
    expect(grantRisk({ method: 'put', path: '/api/v3/movie/editor' }, sensitive)?.destructive).toBe(true);
    expect(grantRisk({ method: 'get', path: '/api/v3/movie' }, sensitive)).toBeNull();
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
