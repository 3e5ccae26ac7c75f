import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';
import type { UnauthorizedCalls } from '@arrbiter/contracts';
import { UnauthorizedCallsComponent, unauthorizedCount } from './unauthorized-calls.component';

const ITEMS: UnauthorizedCalls[] = [
  {
    appId: '00000000-0000-4000-8000-000000000001',
    appName: 'Overseerr',
    slug: 'overseerr',
    count: 12,
    lastSeen: '2030-01-01T10:00:00.000Z',
    lastAddress: '10.0.0.5',
    lastUserAgent: 'Overseerr/1.33',
  },
  {
    appId: null,
    appName: null,
    slug: null,
    count: 1,
    lastSeen: '2030-01-01T09:00:00.000Z',
    lastAddress: null,
    lastUserAgent: null,
  },
];

function render(showApp: boolean): HTMLElement {
  TestBed.configureTestingModule({ providers: [provideRouter([])] });
  const fixture = TestBed.createComponent(UnauthorizedCallsComponent);
  fixture.componentRef.setInput('items', ITEMS);
  fixture.componentRef.setInput('showApp', showApp);
  fixture.detectChanges();
  return fixture.nativeElement as HTMLElement;
}

const text = (element: Element) => (element.textContent ?? '').replace(/\s+/g, ' ').trim();

describe(UnauthorizedCallsComponent.name, () => {
  it('says per app how many calls, when the last came, from where and with which User-Agent', () => {
    const items = [...render(true).querySelectorAll('li')];
    expect(items).toHaveLength(2);
    expect(text(items[0])).toMatch(
      /^Overseerr: 12 calls with a wrong or missing key in the last 24 h, last .+ from 10\.0\.0\.5, User-Agent Overseerr\/1\.33$/,
    );
    expect(items[0].querySelector('a')?.getAttribute('href')).toBe('/apps/00000000-0000-4000-8000-000000000001');
    expect(text(items[1])).toMatch(/^Unknown app: 1 call with a wrong or missing key in the last 24 h, last \S.*\S$/);
    expect(text(items[1])).not.toMatch(/from|User-Agent/);
  });

  it('leaves the app out on the app’s own page', () => {
    const [first] = [...render(false).querySelectorAll('li')];
    expect(text(first)).toMatch(/^12 calls with a wrong or missing key/);
    expect(first.querySelector('a')).toBeNull();
  });

  it('counts in words', () => {
    expect(unauthorizedCount(1, 'the last hour')).toBe('1 call with a wrong or missing key in the last hour');
  });
});
