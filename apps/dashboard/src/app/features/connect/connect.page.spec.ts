import { TestBed } from '@angular/core/testing';
import { provideRouter, Router } from '@angular/router';
import type {
  ConnectClientResponse,
  KnownClientCallDto,
  KnownClientDto,
  RouteRiskDto,
  ServiceDto,
} from '@arrbiter/contracts';
import { AuthService } from '../../core/auth.service';
import { ProxiesApiService } from '../apps/proxies-api.service';
import { KnownClientsApiService } from '../known-clients/known-clients-api.service';
import { ServicesApiService } from '../services/services-api.service';
import { TemplatesApiService } from '../templates/templates-api.service';
import { ConnectApiService } from './connect-api.service';
import { ConnectPage } from './connect.page';

const SAFE: RouteRiskDto = { sensitive: false, destructive: false, purpose: 'read library', reason: 'Reads.' };
const COMMAND: RouteRiskDto = { sensitive: true, destructive: false, purpose: 'system', reason: 'Runs commands.' };

function call(method: string, path: string, risk: RouteRiskDto, fn: string, note?: string): KnownClientCallDto {
  return { method, path, route: path, risk, source: { file: 'base.ts', function: fn }, note };
}

const OVERSEERR: KnownClientDto = {
  id: 'overseerr',
  name: 'Overseerr',
  projectUrl: 'https://overseerr.dev',
  source: { repository: 'https://github.com/sct/overseerr', ref: 'v1.34.0', commit: 'c617' },
  templateNames: ['overseerr'],
  calls: { radarr: 2, sonarr: 2 },
  instructions: true,
  services: {
    radarr: [
      call('get', '/api/v3/movie', SAFE, 'RadarrAPI.getMovies', 'The Radarr scanner.'),
      call('post', '/api/v3/command', COMMAND, 'ServarrBase.runCommand', 'MoviesSearch'),
    ],
    sonarr: [
      call('get', '/api/v3/series', SAFE, 'SonarrAPI.getSeries'),
      call('post', '/api/v3/command', COMMAND, 'ServarrBase.runCommand', 'SeriesSearch'),
    ],
  },
};

function service(id: string, type: string, name: string): ServiceDto {
  return {
    id,
    type,
    name,
    baseUrl: `http://${type}:7878`,
    apiVersions: ['v3'],
    upstreamVersion: '5.0',
    createdAt: '2030-01-01T00:00:00.000Z',
    updatedAt: '2030-01-01T00:00:00.000Z',
  };
}

const SERVICES = [
  service('r1', 'radarr', 'Movies'),
  service('s1', 'sonarr', 'Shows'),
  service('l1', 'lidarr', 'Music'),
];

describe(ConnectPage.name, () => {
  async function render(inputs: Record<string, string>) {
    const connect = {
      connect: jest.fn(
        async (): Promise<ConnectClientResponse> => ({
          app: { id: 'a1', name: 'Overseerr', slug: 'overseerr' } as ConnectClientResponse['app'],
          proxies: [],
          instructions: [],
        }),
      ),
      instructions: jest.fn(),
    };
    TestBed.configureTestingModule({
      imports: [ConnectPage],
      providers: [
        provideRouter([]),
        { provide: ConnectApiService, useValue: connect },
        {
          provide: KnownClientsApiService,
          useValue: { list: jest.fn().mockResolvedValue([OVERSEERR]), get: jest.fn().mockResolvedValue(OVERSEERR) },
        },
        { provide: ServicesApiService, useValue: { list: jest.fn().mockResolvedValue(SERVICES) } },
        { provide: TemplatesApiService, useValue: { list: jest.fn().mockResolvedValue([]) } },
        { provide: ProxiesApiService, useValue: { listForApp: jest.fn().mockResolvedValue([]) } },
        { provide: AuthService, useValue: { can: () => true } },
      ],
    });
    const navigate = jest.spyOn(TestBed.inject(Router), 'navigate').mockResolvedValue(true);
    const fixture = TestBed.createComponent(ConnectPage);
    for (const [key, value] of Object.entries(inputs)) fixture.componentRef.setInput(key, value);
    const element = fixture.nativeElement as HTMLElement;
    const settle = async () => {
      fixture.detectChanges();
      await fixture.whenStable();
      await new Promise((resolve) => setTimeout(resolve));
      fixture.detectChanges();
    };
    await settle();
    const text = (selector: string) => element.querySelector(selector)?.textContent?.replace(/\s+/g, ' ').trim();
    return { fixture, element, settle, navigate, connect, text };
  }

  it('lists the catalogue with initials, the release read and the service types, plus Other / not listed', async () => {
    const { element } = await render({});
    const items = [...element.querySelectorAll('ul.clients li')].map((li) =>
      li.textContent?.replace(/\s+/g, ' ').trim(),
    );
    expect(items[0]).toBe('OVOverseerr, calls read from v1.34.0, talks to Radarr Sonarr');
    expect(items[1]).toMatch(/^\+Other \/ not listed: A plain app/);
    expect(element.querySelector('[aria-current="step"]')?.textContent).toContain('Client');
  });

  it('offers only services of the types the client calls, and preselects none when two fit', async () => {
    const { element } = await render({ step: 'services', client: 'overseerr' });
    const labels = [...element.querySelectorAll('fieldset label')].map((l) =>
      l.textContent?.replace(/\s+/g, ' ').trim(),
    );
    expect(labels).toEqual(['Movies Radarr http://radarr:7878', 'Shows Sonarr http://sonarr:7878']);
    const boxes = [...element.querySelectorAll<HTMLInputElement>('fieldset input')];
    expect(boxes.map((b) => b.checked)).toEqual([false, false]);
  });

  it('reviews: sensitive calls unticked with what breaks without them; create names only the ticked ones', async () => {
    const { element, settle, connect, navigate, text } = await render({
      step: 'review',
      client: 'overseerr',
      services: 'r1,s1',
    });
    const movie = '[data-testid="call-radarr-get-/api/v3/movie"]';
    expect(text(`${movie} .line`)).toBe('GET /api/v3/movie Included');
    expect(text(`${movie} .note`)).toBe('The Radarr scanner.');
    expect(element.querySelector(`${movie} input`)).toBeNull();
    expect(text('[data-testid="without-radarr-post-/api/v3/command"]')).toBe(
      "Without it, Overseerr's ServarrBase.runCommand gets 403: MoviesSearch.",
    );
    expect(text('[data-testid="review-count-radarr"]')).toBe(
      '1 call granted; 1 sensitive call, granted only when ticked.',
    );
    const box = element.querySelector<HTMLInputElement>(
      '[data-testid="call-radarr-post-/api/v3/command"] input[type=checkbox]',
    ) as HTMLInputElement;
    expect(box.checked).toBe(false);
    box.click();
    await settle();
    expect(element.querySelector('[data-testid="without-radarr-post-/api/v3/command"]')).toBeNull();
    expect(element.querySelector('[data-testid="without-sonarr-post-/api/v3/command"]')).not.toBeNull();

    const create = [...element.querySelectorAll('button')].find((b) => b.textContent?.includes('Create the app'));
    create?.click();
    await settle();
    expect(connect.connect).toHaveBeenCalledWith('overseerr', {
      serviceIds: ['r1', 's1'],
      templateId: null,
      include: { sensitive: [{ method: 'post', route: '/api/v3/command', serviceId: 'r1' }] },
    });
    expect(navigate.mock.calls.at(-1)?.[1]).toMatchObject({ queryParams: { step: 'done', app: 'a1' } });
  });
});
