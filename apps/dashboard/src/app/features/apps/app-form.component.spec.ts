import { TestBed } from '@angular/core/testing';
import type { FitResult, KnownClientSummaryDto, RouteRiskDto, TemplateFitResponse } from '@arrbiter/contracts';
import { KnownClientsApiService } from '../known-clients/known-clients-api.service';
import { TemplatesApiService } from '../templates/templates-api.service';
import { AppFormComponent } from './app-form.component';
import { AppsApiService } from './apps-api.service';

const maintainerr: KnownClientSummaryDto = {
  id: 'maintainerr',
  name: 'Maintainerr',
  projectUrl: 'https://github.com/Maintainerr/Maintainerr',
  source: { repository: 'https://github.com/Maintainerr/Maintainerr', ref: 'v3', commit: 'abc' },
  templateNames: ['maintainerr'],
  calls: { radarr: 3, sonarr: 1 },
  instructions: false,
};
const SAFE: RouteRiskDto = {
  sensitive: false,
  destructive: false,
  purpose: 'read library',
  reason: 'Hands out no secrets, does not control the server and deletes nothing.',
};

const radarrFit: FitResult = {
  client: 'maintainerr',
  clientName: 'Maintainerr',
  serviceType: 'radarr',
  calls: 3,
  covered: 1,
  missing: [
    {
      method: 'put',
      route: '/api/v3/movie/{id}',
      sample: '/api/v3/movie/123',
      source: { file: 'radarr.helper.ts', function: 'RadarrApi.updateMovie' },
      risk: { ...SAFE, purpose: 'edit library' },
    },
    {
      method: 'get',
      route: '/api/v3/rootfolder',
      sample: '/api/v3/rootfolder',
      source: { file: 'servarr-api.service.ts', function: 'ServarrApi.getRootFolders' },
      risk: SAFE,
    },
  ],
  unused: [{ method: 'get', route: '/api/v3/calendar', risk: SAFE }],
};

describe(AppFormComponent.name, () => {
  let api: { create: jest.Mock; update: jest.Mock };
  let templatesApi: { fit: jest.Mock };

  async function render() {
    api = { create: jest.fn().mockResolvedValue({ id: 'a1' }), update: jest.fn() };
    templatesApi = {
      fit: jest.fn().mockImplementation(
        async (templateId: string, client: string): Promise<TemplateFitResponse> => ({
          client,
          clientName: 'Maintainerr',
          templateId,
          services: [radarrFit, { ...radarrFit, serviceType: 'sonarr', calls: 1, covered: 1, missing: [], unused: [] }],
        }),
      ),
    };
    TestBed.configureTestingModule({
      imports: [AppFormComponent],
      providers: [
        { provide: AppsApiService, useValue: api },
        { provide: TemplatesApiService, useValue: templatesApi },
        { provide: KnownClientsApiService, useValue: { list: jest.fn().mockResolvedValue([maintainerr]) } },
      ],
    });
    const fixture = TestBed.createComponent(AppFormComponent);
    fixture.componentRef.setInput('templates', [
      { id: 't1', name: 'Overseerr', removed: false },
      { id: 't2', name: 'Old', removed: true },
      { id: 't3', name: 'maintainerr', removed: false },
    ]);
    const element = fixture.nativeElement as HTMLElement;
    const settle = async () => {
      fixture.detectChanges();
      await fixture.whenStable();
      await new Promise((resolve) => setTimeout(resolve));
      fixture.detectChanges();
    };
    const type = async (selector: string, value: string) => {
      const input = element.querySelector<HTMLInputElement>(selector) as HTMLInputElement;
      input.value = value;
      input.dispatchEvent(new Event('input'));
      await settle();
    };
    await settle();
    return { element, settle, type };
  }

  it('suggests the slug from the name until one is typed', async () => {
    const { element, type } = await render();
    const slug = () => element.querySelector<HTMLInputElement>('#app-slug')?.value;
    await type('#app-name', 'Home Assistant — Ünïcode!');
    expect(slug()).toBe('home-assistant-unicode');
    await type('#app-slug', 'ha');
    await type('#app-name', 'Something else');
    expect(slug()).toBe('ha');
  });

  it('offers "No template" first, marks removed templates, and creates with templateId null', async () => {
    const { element, type, settle } = await render();
    const options = [...element.querySelectorAll('#app-template option')].map((o) => o.textContent?.trim());
    expect(options).toEqual(['No template', 'Overseerr', 'Old (removed)', 'maintainerr']);
    await type('#app-name', 'Overseerr');
    element.querySelector('form')?.dispatchEvent(new Event('submit'));
    await settle();
    expect(api.create).toHaveBeenCalledWith({ name: 'Overseerr', slug: 'overseerr', templateId: null, active: true });
  });

  it("answers an empty name with the app's own message, tied to the fields (no browser tooltip)", async () => {
    const { element, settle } = await render();
    const form = element.querySelector('form') as HTMLFormElement;
    expect(form.noValidate).toBe(true);
    form.dispatchEvent(new Event('submit'));
    await settle();
    expect(api.create).not.toHaveBeenCalled();
    const alert = element.querySelector('[role=alert]') as HTMLElement;
    expect(alert.textContent?.trim()).toBe('Enter a name.');
    const name = element.querySelector('#app-name') as HTMLInputElement;
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(name.getAttribute('aria-describedby')?.split(' ')).toEqual(['app-name-count', alert.id]);
  });

  it('says the 100-character limit of a name as it is reached', async () => {
    const { element, type } = await render();
    const count = () => element.querySelector('#app-name-count')?.textContent?.trim();
    expect(element.querySelector('#app-name')?.getAttribute('maxlength')).toBe('100');
    await type('#app-name', 'Overseerr');
    expect(count()).toBe('9 of 100 characters');
    await type('#app-name', 'x'.repeat(100));
    expect(count()).toBe('100 of 100 characters: the limit');
    expect(element.querySelector('#app-name')?.getAttribute('aria-invalid')).toBeNull();
  });

  it('refuses a bad slug before calling the server', async () => {
    const { element, type, settle } = await render();
    await type('#app-name', 'X');
    await type('#app-slug', '-bad');
    element.querySelector('form')?.dispatchEvent(new Event('submit'));
    await settle();
    expect(api.create).not.toHaveBeenCalled();
    expect(element.querySelector('[role=alert]')?.textContent).toContain('lower-case letters');
  });

  it("shows the chosen template's fit for its known client before saving, per service type", async () => {
    const { element, settle } = await render();
    expect(element.querySelector('[data-testid=template-fit]')).toBeNull();
    const select = element.querySelector<HTMLSelectElement>('#app-template') as HTMLSelectElement;
    select.value = 't3';
    select.dispatchEvent(new Event('change'));
    await settle();
    expect(templatesApi.fit).toHaveBeenCalledWith('t3', 'maintainerr');
    const fit = element.querySelector('[data-testid=template-fit]') as HTMLElement;
    expect(fit.textContent).toContain('Fit for Maintainerr');
    const radarr = fit.querySelector('[data-testid=fit-radarr]') as HTMLElement;
    expect(radarr.querySelector('summary')?.textContent?.replace(/\s+/g, ' ').trim()).toBe(
      'radarr covers 1 of 3 calls, 2 missing, 1 unused grant',
    );
    // Compact: the calls are behind the summary.
    expect(radarr.querySelector('details')?.open).toBe(false);
    expect(radarr.textContent).toContain('PUT /api/v3/movie/{id}');
    expect(radarr.textContent).toContain('/api/v3/movie/123');
    expect(fit.querySelector('[data-testid=fit-sonarr]')?.textContent?.replace(/\s+/g, ' ').trim()).toBe(
      'sonarr covers 1 of 1 call, 0 missing',
    );
    expect(api.create).not.toHaveBeenCalled();
  });

  it('says so when the chosen template matches no known client, without asking the server', async () => {
    const { element, settle } = await render();
    const select = element.querySelector<HTMLSelectElement>('#app-template') as HTMLSelectElement;
    select.value = 't1';
    select.dispatchEvent(new Event('change'));
    await settle();
    expect(templatesApi.fit).not.toHaveBeenCalled();
    expect(element.querySelector('[data-testid=template-fit]')?.textContent).toContain(
      'No known client matches this template',
    );
  });
});
