import { TestBed } from '@angular/core/testing';
import { provideRouter, Router } from '@angular/router';
import type { AppDto, ListAppsQuery, Page } from '@arrbiter/contracts';
import { TemplatesApiService } from '../templates/templates-api.service';
import { AppsApiService } from './apps-api.service';
import { AppsPage, SEARCH_DELAY_MS } from './apps.page';

const TEMPLATE = '00000000-0000-4000-8000-0000000000f1';

function app(n: number, fields: Partial<AppDto> = {}): AppDto {
  return {
    id: `a${n}`,
    name: `App ${n}`,
    slug: `app-${n}`,
    templateId: null,
    templateName: null,
    knownClientId: null,
    active: true,
    proxyCount: 0,
    createdAt: '2030-01-01T00:00:00.000Z',
    updatedAt: '2030-01-01T00:00:00.000Z',
    ...fields,
  };
}

describe(AppsPage.name, () => {
  let asked: ListAppsQuery[];
  let pages: Page<AppDto>[];

  afterEach(() => jest.useRealTimers());

  async function render(inputs: Record<string, string> = {}) {
    asked = [];
    const api = {
      list: jest.fn(async (query: ListAppsQuery) => {
        asked.push(query);
        return pages.shift() ?? { items: [], nextCursor: null };
      }),
      remove: jest.fn(),
    };
    TestBed.configureTestingModule({
      imports: [AppsPage],
      providers: [
        provideRouter([]),
        { provide: AppsApiService, useValue: api },
        {
          provide: TemplatesApiService,
          useValue: { list: jest.fn().mockResolvedValue([{ id: TEMPLATE, name: 'Radarr read-only', removed: false }]) },
        },
      ],
    });
    const router = TestBed.inject(Router);
    const navigate = jest.spyOn(router, 'navigate').mockResolvedValue(true);
    const fixture = TestBed.createComponent(AppsPage);
    for (const [key, value] of Object.entries(inputs)) fixture.componentRef.setInput(key, value);
    const element = fixture.nativeElement as HTMLElement;
    const settle = async () => {
      fixture.detectChanges();
      await fixture.whenStable();
      await new Promise((resolve) => setTimeout(resolve));
      fixture.detectChanges();
    };
    await settle();
    const rows = () =>
      [...element.querySelectorAll('tbody tr')].map((tr) => tr.querySelector('a')?.textContent?.trim());
    const button = (text: string) =>
      [...element.querySelectorAll('button')].find((b) => b.textContent?.trim() === text) as
        | HTMLButtonElement
        | undefined;
    return { fixture, element, settle, rows, button, navigate };
  }

  it('loads the first page with the search and filters of the URL, and the next page with its cursor', async () => {
    pages = [
      { items: [app(1), app(2)], nextCursor: 'c1' },
      { items: [app(3)], nextCursor: null },
    ];
    const { rows, button, settle, element } = await render({ q: ' app ', templateId: TEMPLATE, state: 'inactive' });

    expect(asked).toEqual([{ q: 'app', templateId: TEMPLATE, state: 'inactive', limit: 50, cursor: undefined }]);
    expect(rows()).toEqual(['App 1', 'App 2']);
    expect(element.querySelector<HTMLInputElement>('#apps-search')?.value).toBe(' app ');
    expect(element.querySelector<HTMLSelectElement>('#apps-template')?.value).toBe(TEMPLATE);
    expect(element.querySelector<HTMLSelectElement>('#apps-state')?.value).toBe('inactive');

    button('Load more')?.click();
    await settle();

    expect(asked[1]).toEqual({ q: 'app', templateId: TEMPLATE, state: 'inactive', limit: 50, cursor: 'c1' });
    expect(rows()).toEqual(['App 1', 'App 2', 'App 3']);
    expect(button('Load more')).toBeUndefined();
  });

  it('sends no filter the server would refuse', async () => {
    pages = [];
    await render({ templateId: 'radarr', state: 'paused', q: '   ' });
    expect(asked).toEqual([{ q: undefined, templateId: undefined, state: undefined, limit: 50, cursor: undefined }]);
  });

  it('puts the search in the URL once typing pauses, and at once on Enter', async () => {
    pages = [];
    const { element, navigate } = await render();
    jest.useFakeTimers();
    try {
      const input = element.querySelector<HTMLInputElement>('#apps-search') as HTMLInputElement;
      for (const value of ['n', 'no', 'not']) {
        input.value = value;
        input.dispatchEvent(new Event('input'));
      }
      expect(navigate).not.toHaveBeenCalled();
      jest.advanceTimersByTime(SEARCH_DELAY_MS);
      expect(navigate).toHaveBeenCalledTimes(1);
      expect(navigate.mock.calls[0][1]).toMatchObject({ queryParams: { q: 'not' }, queryParamsHandling: 'merge' });

      input.value = '100% ';
      input.dispatchEvent(new Event('input'));
      element.querySelector('form')?.dispatchEvent(new Event('submit'));
      expect(navigate).toHaveBeenCalledTimes(2);
      expect(navigate.mock.calls[1][1]).toMatchObject({ queryParams: { q: '100%' } });
      jest.advanceTimersByTime(SEARCH_DELAY_MS);
      expect(navigate).toHaveBeenCalledTimes(2);
    } finally {
      jest.useRealTimers();
    }
  });

  it('puts the template and state filters in the URL, "none" for no template', async () => {
    pages = [];
    const { element, navigate, settle } = await render();
    const options = [...element.querySelectorAll('#apps-template option')].map((o) => o.textContent?.trim());
    expect(options).toEqual(['Any template', 'No template', 'Radarr read-only']);
    const template = element.querySelector<HTMLSelectElement>('#apps-template') as HTMLSelectElement;
    template.value = 'none';
    template.dispatchEvent(new Event('change'));
    const state = element.querySelector<HTMLSelectElement>('#apps-state') as HTMLSelectElement;
    state.value = 'active';
    state.dispatchEvent(new Event('change'));
    await settle();
    expect(navigate.mock.calls.map((call) => call[1]?.queryParams)).toEqual([
      { templateId: 'none' },
      { state: 'active' },
    ]);
  });

  it('says when nothing matches, and offers to clear the filters', async () => {
    pages = [];
    const { element, button, navigate } = await render({ q: 'zzz' });
    expect(element.textContent).toContain('No apps match these filters.');
    expect(element.textContent).not.toContain('No apps yet');
    button('Clear search and filters')?.click();
    expect(navigate.mock.calls[0][1]?.queryParams).toEqual({ q: null, templateId: null, state: null });
  });

  it('invites to create the first app when there is none at all', async () => {
    pages = [];
    const { element } = await render();
    expect(element.textContent).toContain('No apps yet.');
    expect(element.textContent).not.toContain('No apps match');
  });

  it("opens the new-app form from ?create=1 (the connect flow's Other / not listed)", async () => {
    pages = [];
    expect((await render()).element.querySelector('arb-app-form')).toBeNull();
    TestBed.resetTestingModule();
    pages = [];
    expect((await render({ create: '1' })).element.querySelector('arb-app-form')).not.toBeNull();
  });

  it('labels the search box and both filters', async () => {
    pages = [];
    const { element } = await render();
    for (const id of ['apps-search', 'apps-template', 'apps-state'])
      expect(element.querySelector(`label[for="${id}"]`)?.textContent?.trim()).toBeTruthy();
  });
});
