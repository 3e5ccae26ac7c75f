import { Component, signal } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import axe from 'axe-core';
import type { AdminRole, RecentCallDto, RecentCallsResponse, RouteRiskDto } from '@arrbiter/contracts';
import { ConfirmService } from '@arrbiter/dashboard/ui';
import { AuthService } from '../../../core/auth.service';
import { ProxiesApiService } from '../proxies-api.service';
import { RECENT_CALLS_POLL_MS, RecentCallsComponent } from './recent-calls.component';

const SAFE: RouteRiskDto = {
  sensitive: false,
  destructive: false,
  purpose: 'read library',
  reason: 'Hands out no secrets.',
};
const HOST: RouteRiskDto = {
  sensitive: true,
  destructive: false,
  purpose: 'settings',
  reason: "Holds the instance's own API key and its passwords.",
};

const call = (overrides: Partial<RecentCallDto>): RecentCallDto => ({
  at: new Date().toISOString(),
  method: 'get',
  path: '/api/v3/movie',
  route: '/api/v3/movie',
  outcome: 'allowed',
  status: 200,
  risk: SAFE,
  ...overrides,
});

@Component({
  imports: [RecentCallsComponent],
  template: `@if (shown()) {
    <arb-recent-calls [proxyId]="proxyId()" (done)="doneCount = doneCount + 1" />
  }`,
})
class HostComponent {
  readonly proxyId = signal('p1');
  readonly shown = signal(true);
  doneCount = 0;
}

describe(RecentCallsComponent.name, () => {
  let api: { recentCalls: jest.Mock; setGrant: jest.Mock };
  let confirm: { ask: jest.Mock };
  let hidden = false;

  beforeAll(() => {
    Object.defineProperty(document, 'hidden', { configurable: true, get: () => hidden });
  });

  afterEach(() => {
    jest.useRealTimers();
    hidden = false;
  });

  async function render({ items = [] as RecentCallDto[], replicas = 1, role = 'editor' as AdminRole } = {}) {
    jest.useFakeTimers();
    const answer = (): RecentCallsResponse => ({
      items,
      replicas,
      armedUntil: new Date(Date.now() + 10 * 60_000).toISOString(),
    });
    // The first answer arms for 10 minutes from the opening; later ones extend it (the view ignores that).
    api = {
      recentCalls: jest.fn().mockImplementation(async () => answer()),
      setGrant: jest.fn().mockResolvedValue({}),
    };
    confirm = { ask: jest.fn().mockResolvedValue(true) };
    TestBed.configureTestingModule({
      imports: [HostComponent],
      providers: [
        { provide: ProxiesApiService, useValue: api },
        { provide: ConfirmService, useValue: confirm },
        {
          provide: AuthService,
          useValue: { can: (required: AdminRole) => role !== 'viewer' || required === 'viewer' },
        },
      ],
    });
    const fixture = TestBed.createComponent(HostComponent);
    const element = fixture.nativeElement as HTMLElement;
    /** Moves the clock (and the timers) on, and lets the answers in. */
    const advance = async (ms = 0) => {
      fixture.detectChanges();
      await jest.advanceTimersByTimeAsync(ms);
      fixture.detectChanges();
      await jest.advanceTimersByTimeAsync(0);
      fixture.detectChanges();
    };
    await advance();
    const text = (selector: string) => element.querySelector(selector)?.textContent?.replace(/\s+/g, ' ').trim();
    const button = (label: string) =>
      [...element.querySelectorAll<HTMLButtonElement>('button')].find(
        (b) => b.getAttribute('aria-label') === label || b.textContent?.trim() === label,
      );
    const setHidden = async (value: boolean) => {
      hidden = value;
      document.dispatchEvent(new Event('visibilitychange'));
      await advance();
    };
    return { fixture, element, advance, text, button, setHidden };
  }

  it('waits for the first call in a polite live region, asking every 2 s', async () => {
    const { text, advance, element } = await render();
    expect(api.recentCalls).toHaveBeenCalledTimes(1);
    expect(api.recentCalls).toHaveBeenCalledWith('p1');
    expect(text('[data-testid=recent-calls-live]')).toBe('Waiting for the first call…');
    expect(element.querySelector('[data-testid=recent-calls-live]')?.getAttribute('aria-live')).toBe('polite');
    await advance(RECENT_CALLS_POLL_MS);
    expect(api.recentCalls).toHaveBeenCalledTimes(2);
    await advance(RECENT_CALLS_POLL_MS);
    expect(api.recentCalls).toHaveBeenCalledTimes(3);
  });

  it('shows each call: time, method, path, outcome in words; and the replicas note', async () => {
    const { element, text } = await render({
      replicas: 2,
      items: [
        call({
          outcome: 'refused',
          status: 403,
          path: '/api/v3/config/host',
          route: '/api/v3/config/host',
          risk: HOST,
        }),
        call({ outcome: 'unauthorized', status: 401, route: null, risk: null }),
        call({}),
      ],
    });
    const rows = [...element.querySelectorAll('[data-testid=recent-calls] li')];
    expect(
      // Each part of a row but its time, which is local.
      rows.map((row) =>
        [...row.children]
          .filter((child) => child.tagName !== 'TIME')
          .map((child) => child.textContent?.replace(/\s+/g, ' ').trim())
          .join(' '),
      ),
    ).toEqual([
      'GET /api/v3/config/host Refused (403) Sensitive Grant',
      "GET /api/v3/movie Wrong or missing key (401) Sent to this app's address with a wrong, inactive or missing key.",
      'GET /api/v3/movie Allowed (200)',
    ]);
    expect(rows[0].querySelector('time')?.getAttribute('datetime')).toMatch(/^\d{4}-\d\d-\d\dT/);
    // Read as one line by a screen reader: its parts apart.
    expect(rows[2].textContent?.replace(/\s+/g, ' ').trim()).toMatch(
      /\d( [AP]M)? GET \/api\/v3\/movie Allowed \(200\)$/,
    );
    expect(text('[data-testid=recent-calls-live]')).toBe('3 calls so far.');
    expect(text('[data-testid=recent-calls-replicas]')).toContain('2 replicas of Arrbiter are running');
  });

  it('stops asking at "That\'s all, looks good", and says so', async () => {
    const { button, advance, fixture, text } = await render();
    button("That's all, looks good")?.click();
    await advance(5 * RECENT_CALLS_POLL_MS);
    expect(api.recentCalls).toHaveBeenCalledTimes(1);
    expect(fixture.componentInstance.doneCount).toBe(1);
    expect(text('[data-testid=recent-calls-live]')).toBe('Done.');
    expect(button("That's all, looks good")).toBeUndefined();
  });

  it('stops asking when it goes away', async () => {
    const { advance, fixture } = await render();
    fixture.componentInstance.shown.set(false);
    await advance(5 * RECENT_CALLS_POLL_MS);
    expect(api.recentCalls).toHaveBeenCalledTimes(1);
  });

  it('pauses while the tab is hidden and asks at once when it shows again', async () => {
    const { advance, setHidden } = await render();
    await setHidden(true);
    await advance(5 * RECENT_CALLS_POLL_MS);
    expect(api.recentCalls).toHaveBeenCalledTimes(1);
    await setHidden(false);
    expect(api.recentCalls).toHaveBeenCalledTimes(2);
    await advance(RECENT_CALLS_POLL_MS);
    expect(api.recentCalls).toHaveBeenCalledTimes(3);
  });

  it('stops after the 10 minutes the first answer armed, and can watch again', async () => {
    const { advance, text, button } = await render();
    await advance(10 * 60_000);
    const asked = api.recentCalls.mock.calls.length;
    expect(asked).toBeLessThanOrEqual(10 * 30 + 1);
    expect(text('[data-testid=recent-calls-live]')).toBe('Stopped watching: no call is recorded any more.');
    await advance(10 * RECENT_CALLS_POLL_MS);
    expect(api.recentCalls).toHaveBeenCalledTimes(asked);
    button('Watch again')?.click();
    await advance();
    expect(api.recentCalls).toHaveBeenCalledTimes(asked + 1);
    expect(text('[data-testid=recent-calls-live]')).toBe('Waiting for the first call…');
  });

  it('asks before granting a sensitive call, naming why, and grants it through the allowlist', async () => {
    const { button, advance, element } = await render({
      items: [
        call({
          outcome: 'refused',
          status: 403,
          path: '/api/v3/config/host',
          route: '/api/v3/config/host',
          risk: HOST,
        }),
      ],
    });
    confirm.ask.mockResolvedValueOnce(false);
    button('Grant GET /api/v3/config/host')?.click();
    await advance();
    expect(confirm.ask).toHaveBeenCalledWith(
      expect.objectContaining({
        title: 'Grant GET /api/v3/config/host?',
        message: expect.stringContaining(HOST.reason),
        danger: true,
      }),
    );
    expect(api.setGrant).not.toHaveBeenCalled();
    button('Grant GET /api/v3/config/host')?.click();
    await advance();
    expect(api.setGrant).toHaveBeenCalledWith('p1', '/api/v3/config/host', 'get', true);
    expect(element.querySelector('[role=status].success')?.textContent).toContain('Granted GET /api/v3/config/host');
    expect(button('Grant GET /api/v3/config/host')).toBeUndefined();
  });

  it('grants an ordinary refused call in one click, its exact path when it resolved to no route', async () => {
    const { button, advance } = await render({
      items: [call({ method: 'post', outcome: 'refused', status: 403, path: '/api/v3/queue/grab', route: null })],
    });
    button('Grant POST /api/v3/queue/grab')?.click();
    await advance();
    expect(confirm.ask).not.toHaveBeenCalled();
    expect(api.setGrant).toHaveBeenCalledWith('p1', '/api/v3/queue/grab', 'post', true);
  });

  it('has no WCAG 2.1 A/AA violation that axe finds without a layout (contrast: the browser tests)', async () => {
    const { element } = await render({
      replicas: 2,
      items: [
        call({
          outcome: 'refused',
          status: 403,
          path: '/api/v3/config/host',
          route: '/api/v3/config/host',
          risk: HOST,
        }),
        call({ outcome: 'unauthorized', status: 401, route: null, risk: null }),
        call({ outcome: 'rate-limited', status: 429, route: null, risk: null }),
        call({}),
      ],
    });
    jest.useRealTimers();
    // jsdom has no canvas, which axe's icon-ligature check tries first: that one message is dropped.
    const error = console.error;
    const quiet = jest.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
      if (!String(args[0]).includes('HTMLCanvasElement.prototype.getContext')) error(...args);
    });
    const results = await axe.run(element, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      rules: { 'color-contrast': { enabled: false } },
    });
    quiet.mockRestore();
    expect(results.violations.map((violation) => violation.id)).toEqual([]);
  });

  it('offers no grant to a viewer', async () => {
    const { button } = await render({
      role: 'viewer',
      items: [call({ outcome: 'refused', status: 403, path: '/api/v3/tag', route: '/api/v3/tag' })],
    });
    expect(button('Grant GET /api/v3/tag')).toBeUndefined();
  });
});
