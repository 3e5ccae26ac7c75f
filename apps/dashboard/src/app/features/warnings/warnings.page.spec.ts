import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';
import type { Page, WarningDto } from '@arrbiter/contracts';
import { AuthService } from '../../core/auth.service';
import { AppsApiService } from '../apps/apps-api.service';
import { ProxiesApiService } from '../apps/proxies-api.service';
import { KnownClientsApiService } from '../known-clients/known-clients-api.service';
import { ServicesApiService } from '../services/services-api.service';
import { WarningsApiService } from './warnings-api.service';
import { WarningsPage } from './warnings.page';

function warning(id: string, fields: Partial<WarningDto>): WarningDto {
  return {
    id,
    proxyId: 'p1',
    appId: 'a1',
    method: 'get',
    path: '/api/v3/movie',
    route: '/api/v3/movie',
    shape: null,
    otherPaths: false,
    count: 1,
    firstSeen: '2030-01-01T00:00:00.000Z',
    lastSeen: '2030-01-01T00:00:00.000Z',
    status: 'open',
    knownCallers: [],
    ...fields,
  };
}

describe(WarningsPage.name, () => {
  async function render(page: Page<WarningDto>, inputs: Record<string, string> = {}) {
    const api = {
      list: jest.fn().mockResolvedValue(page),
      grant: jest.fn(async (id: string) => ({
        warning: { ...page.items.find((w) => w.id === id), status: 'granted' },
        revision: { summary: { text: 'Granted from warnings: 1 grant added' } },
      })),
      dismiss: jest.fn(),
    };
    TestBed.configureTestingModule({
      imports: [WarningsPage],
      providers: [
        provideRouter([]),
        { provide: WarningsApiService, useValue: api },
        { provide: AuthService, useValue: { can: () => true } },
        { provide: AppsApiService, useValue: { listAll: jest.fn().mockResolvedValue([]) } },
        { provide: ProxiesApiService, useValue: { listForApp: jest.fn().mockResolvedValue([]) } },
        { provide: ServicesApiService, useValue: { list: jest.fn().mockResolvedValue([]) } },
        { provide: KnownClientsApiService, useValue: { list: jest.fn().mockResolvedValue([]) } },
      ],
    });
    const fixture = TestBed.createComponent(WarningsPage);
    for (const [key, value] of Object.entries(inputs)) fixture.componentRef.setInput(key, value);
    const element = fixture.nativeElement as HTMLElement;
    const settle = async () => {
      fixture.detectChanges();
      await fixture.whenStable();
      await new Promise((resolve) => setTimeout(resolve));
      fixture.detectChanges();
    };
    await settle();
    const buttonsOf = (id: string) =>
      [...element.querySelectorAll(`tbody tr`)]
        .filter((tr) => tr.getAttribute('data-testid')?.startsWith(`warning-${id}`))
        .flatMap((tr) => [...tr.querySelectorAll('button')].map((b) => b.textContent?.trim()));
    return { api, element, settle, buttonsOf };
  }

  it('shows the "other paths" row without a grant button, and a folded row with its sample and its shape to grant', async () => {
    const { api, element, settle, buttonsOf } = await render(
      {
        items: [
          warning('w1', { method: '*', path: '/api/v3/p9/x', route: null, otherPaths: true, count: 2800 }),
          warning('w2', { path: '/api/v3/thing/42', route: null, shape: '/api/v3/thing/{id}' }),
          warning('w3', { path: `/api/v3/long/${'k'.repeat(497)}…`, route: null, shape: '/api/v3/long/{id}' }),
          warning('w4', { path: '/api/v3/a/b/c/d/e/f', route: null, shape: '/api/v3/a/b/c/d/…' }),
          warning('w5', {}),
        ],
        nextCursor: null,
      },
      { q: ' thing ' },
    );
    expect(api.list).toHaveBeenCalledWith(expect.objectContaining({ q: 'thing' }));
    expect(buttonsOf('*')).toEqual(['Dismiss']);
    expect(element.textContent).toContain('Other paths');
    expect(buttonsOf('get-/api/v3/thing')).toEqual([
      'Grant GET /api/v3/thing/42',
      'Grant GET /api/v3/thing/{id}',
      'Dismiss',
    ]);
    expect(element.textContent).toContain('counted as /api/v3/thing/{id}');
    // A cut sample is no path; a shape of deeper paths stands for more than it names.
    expect(buttonsOf('get-/api/v3/long')).toEqual(['Grant GET /api/v3/long/{id}', 'Dismiss']);
    expect(buttonsOf('get-/api/v3/a/b')).toEqual(['Grant GET /api/v3/a/b/c/d/e/f', 'Dismiss']);
    expect(buttonsOf('get-/api/v3/movie')).toEqual(['Grant GET /api/v3/movie', 'Dismiss']);

    const shapeButton = [...element.querySelectorAll('button')].find(
      (b) => b.textContent?.trim() === 'Grant GET /api/v3/thing/{id}',
    ) as HTMLButtonElement;
    shapeButton.click();
    await settle();
    expect(api.grant).toHaveBeenCalledWith('w2', { scope: 'shape' });
  });
});
