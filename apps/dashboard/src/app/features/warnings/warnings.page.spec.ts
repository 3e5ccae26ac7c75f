import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';
import type { Page, WarningDto } from '@arrbiter/contracts';
import { AuthService } from '../../core/auth.service';
import { AppsApiService } from '../apps/apps-api.service';
import { ProxiesApiService } from '../apps/proxies-api.service';
import { KnownClientsApiService } from '../known-clients/known-clients-api.service';
import { ServicesApiService } from '../services/services-api.service';
import { WarningsApiService } from './warnings-api.service';
import { ConfirmService } from '@arrbiter/dashboard/ui';
import { pathPieces, WarningsPage } from './warnings.page';

const SENSITIVE = {
  sensitive: true,
  destructive: false,
  purpose: 'system' as const,
  reason: 'Hands out a backup of the server’s database, keys included.',
};

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
    risk: null,
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
      grantMany: jest.fn(async (request: { ids: string[]; confirmSensitive?: boolean }) => {
        const sensitive = (id: string) => page.items.find((w) => w.id === id)?.risk?.sensitive;
        const skip = request.confirmSensitive ? [] : request.ids.filter(sensitive);
        return {
          done: request.ids.filter((id) => !skip.includes(id)),
          skipped: skip.map((id) => ({ id, reason: 'sensitive: needs confirmSensitive' })),
          revisions: [],
        };
      }),
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
        .flatMap((tr) =>
          [...tr.querySelectorAll('button')].map((b) => b.getAttribute('aria-label') ?? b.textContent?.trim()),
        );
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
      'Dismiss GET /api/v3/thing/42',
    ]);
    expect(element.textContent).toContain('counted as /api/v3/thing/{id}');
    // A cut sample is no path; a shape of deeper paths stands for more than it names.
    expect(buttonsOf('get-/api/v3/long')).toEqual([
      'Grant GET /api/v3/long/{id}',
      expect.stringMatching(/^Dismiss GET/),
    ]);
    expect(buttonsOf('get-/api/v3/a/b')).toEqual(['Grant GET /api/v3/a/b/c/d/e/f', 'Dismiss GET /api/v3/a/b/c/d/e/f']);
    expect(buttonsOf('get-/api/v3/movie')).toEqual(['Grant GET /api/v3/movie', 'Dismiss GET /api/v3/movie']);

    const shapeButton = [...element.querySelectorAll('button')].find(
      (b) => b.getAttribute('aria-label') === 'Grant GET /api/v3/thing/{id}',
    ) as HTMLButtonElement;
    expect(shapeButton.textContent?.trim()).toBe('Grant shape');
    shapeButton.click();
    await settle();
    expect(api.grant).toHaveBeenCalledWith('w2', { scope: 'shape' });
  });

  it('splits a path after each slash, so that it wraps there', () => {
    expect(pathPieces('/api/v3/movie/42')).toEqual(['/', 'api/', 'v3/', 'movie/', '42']);
  });

  it('asks before granting a sensitive row, naming it and why, and grants nothing when cancelled', async () => {
    const { api, element, settle } = await render({
      items: [warning('w1', { path: '/api/v3/system/backup', route: '/api/v3/system/backup', risk: SENSITIVE })],
      nextCursor: null,
    });
    expect(element.querySelector('[data-testid="risk-badge"]')?.textContent?.trim()).toBe('Sensitive');
    expect(element.textContent).toContain(SENSITIVE.reason);
    const confirm = TestBed.inject(ConfirmService);
    (element.querySelector('button[aria-label="Grant GET /api/v3/system/backup"]') as HTMLButtonElement).click();
    await settle();
    expect(confirm.pending()?.title).toBe('Grant GET /api/v3/system/backup?');
    expect(confirm.pending()?.message).toContain(SENSITIVE.reason);
    confirm.answer(false);
    await settle();
    expect(api.grant).not.toHaveBeenCalled();
  });

  it('leaves sensitive rows out of a bulk grant unless included, and says what it skipped and why', async () => {
    const { api, element, settle } = await render({
      items: [
        warning('w1', { path: '/api/v3/system/backup', route: '/api/v3/system/backup', risk: SENSITIVE }),
        warning('w2', {}),
      ],
      nextCursor: null,
    });
    for (const box of element.querySelectorAll<HTMLInputElement>('[data-testid="warning-tick"]')) box.click();
    await settle();
    expect(element.querySelector('[data-testid="include-sensitive"]')).not.toBeNull();
    (element.querySelector('[data-testid="bulk-grant"]') as HTMLButtonElement).click();
    await settle();
    expect(api.grantMany).toHaveBeenCalledWith({ ids: ['w1', 'w2'], confirmSensitive: false });
    expect(element.querySelector('[data-testid="grant-notice"]')?.textContent).toContain(
      'Granted 1 of 2. Skipped 1: GET /api/v3/system/backup (sensitive: needs confirmSensitive).',
    );
  });

  it('says a rate-limited row was rate-limited, with a link to the proxy’s limits', async () => {
    const { element } = await render({
      items: [warning('w1', { status: 'rate-limited', route: null, path: '/api/v3/queue' })],
      nextCursor: null,
    });
    expect(element.textContent).toContain('Refused by the proxy’s rate limit');
    expect(element.textContent).not.toContain('No known route');
    expect(element.querySelector('a[href$="/connection#limits-title"]')).not.toBeNull();
  });
});
