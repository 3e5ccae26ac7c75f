import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';
import type { AppDto, ServiceDto } from '@arrbiter/contracts';
import { AuthService } from '../../core/auth.service';
import { ServicesApiService } from '../services/services-api.service';
import { TemplatesApiService } from '../templates/templates-api.service';
import { UsageApiService } from '../usage/usage-api.service';
import { AppDetailPage } from './app-detail.page';
import { AppsApiService } from './apps-api.service';
import { ProxiesApiService } from './proxies-api.service';

const service = (id: string, name: string): ServiceDto =>
  ({ id, name, type: 'radarr', baseUrl: `http://${id}:7878`, apiVersions: ['v3'] }) as ServiceDto;

describe(AppDetailPage.name, () => {
  async function render(services: ServiceDto[]) {
    TestBed.configureTestingModule({
      imports: [AppDetailPage],
      providers: [
        provideRouter([]),
        { provide: AuthService, useValue: { can: () => true } },
        {
          provide: AppsApiService,
          useValue: {
            get: jest
              .fn()
              .mockResolvedValue({ id: 'a1', name: 'Overseerr', slug: 'overseerr', active: true } as AppDto),
          },
        },
        { provide: ProxiesApiService, useValue: { listForApp: jest.fn().mockResolvedValue([]) } },
        { provide: ServicesApiService, useValue: { list: jest.fn().mockResolvedValue(services) } },
        { provide: TemplatesApiService, useValue: { list: jest.fn().mockResolvedValue([]) } },
        { provide: UsageApiService, useValue: { unauthorized: jest.fn().mockResolvedValue({ items: [] }) } },
      ],
    });
    const fixture = TestBed.createComponent(AppDetailPage);
    fixture.componentRef.setInput('appId', 'a1');
    for (let i = 0; i < 3; i++) {
      fixture.detectChanges();
      await fixture.whenStable();
      await new Promise((resolve) => setTimeout(resolve));
    }
    fixture.detectChanges();
    return fixture.nativeElement as HTMLElement;
  }

  it('chooses the only service for a new proxy', async () => {
    const element = await render([service('s1', 'Movies')]);
    const select = element.querySelector('#proxy-service') as HTMLSelectElement;
    expect(select.selectedOptions[0]?.textContent?.trim()).toBe('Movies (radarr)');
    expect((element.querySelector('.add-proxy button[type=submit]') as HTMLButtonElement).disabled).toBe(false);
  });

  it('asks for a choice among several services', async () => {
    const element = await render([service('s1', 'Movies'), service('s2', 'Movies 4K')]);
    const select = element.querySelector('#proxy-service') as HTMLSelectElement;
    expect(select.selectedOptions[0]?.textContent?.trim()).toBe('Choose a service…');
    expect((element.querySelector('.add-proxy button[type=submit]') as HTMLButtonElement).disabled).toBe(true);
  });
});
