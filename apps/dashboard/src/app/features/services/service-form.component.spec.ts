import { HttpErrorResponse } from '@angular/common/http';
import { TestBed } from '@angular/core/testing';
import type { ServiceDto } from '@arrbiter/contracts';
import { baseUrlProblem, ServiceFormComponent } from './service-form.component';
import { ServicesApiService } from './services-api.service';

describe(ServiceFormComponent.name, () => {
  const service: ServiceDto = {
    id: 's1',
    name: 'Movies',
    type: 'radarr',
    baseUrl: 'http://radarr:7878',
    apiVersions: ['v3'],
    upstreamVersion: '5.14.0',
    createdAt: '2026-01-01T00:00:00Z',
    updatedAt: '2026-01-01T00:00:00Z',
  };
  let api: { create: jest.Mock; update: jest.Mock };

  async function render() {
    api = { create: jest.fn(), update: jest.fn() };
    TestBed.configureTestingModule({
      imports: [ServiceFormComponent],
      providers: [{ provide: ServicesApiService, useValue: api }],
    });
    const fixture = TestBed.createComponent(ServiceFormComponent);
    const element = fixture.nativeElement as HTMLElement;
    const settle = async () => {
      fixture.detectChanges();
      await fixture.whenStable();
      await new Promise((resolve) => setTimeout(resolve));
      fixture.detectChanges();
    };
    const type = (selector: string, value: string) => {
      const input = element.querySelector<HTMLInputElement>(selector) as HTMLInputElement;
      input.value = value;
      input.dispatchEvent(new Event('input'));
    };
    const submit = async () => {
      element.querySelector('form')?.dispatchEvent(new Event('submit'));
      await settle();
    };
    await settle();
    return { fixture, element, type, submit };
  }

  it("answers empty fields with the form's own message on the field at fault (no browser tooltip)", async () => {
    const { element, type, submit } = await render();
    expect((element.querySelector('form') as HTMLFormElement).noValidate).toBe(true);
    await submit();
    expect(api.create).not.toHaveBeenCalled();
    const url = element.querySelector('#service-base-url') as HTMLInputElement;
    const key = element.querySelector('#service-api-key') as HTMLInputElement;
    expect(element.querySelector('#service-problem[role=alert]')?.textContent?.trim()).toBe(baseUrlProblem(''));
    expect(url.getAttribute('aria-invalid')).toBe('true');
    expect(url.getAttribute('aria-describedby')).toBe('service-base-url-hint service-problem');
    expect(key.getAttribute('aria-invalid')).toBeNull();
    type('#service-base-url', 'http://radarr:7878');
    await submit();
    expect(element.querySelector('#service-problem')?.textContent?.trim()).toBe('Enter the service’s API key.');
    expect(url.getAttribute('aria-invalid')).toBeNull();
    expect(key.getAttribute('aria-invalid')).toBe('true');
  });

  it('checks the base URL before calling the server', async () => {
    const { element, type, submit } = await render();
    type('#service-base-url', 'http://radarr:7878/api/v3');
    type('#service-api-key', 'key');
    await submit();
    expect(api.create).not.toHaveBeenCalled();
    expect(element.querySelector('[role=alert]')?.textContent).toContain('Leave out the API prefix');
  });

  it('shows what discovery found', async () => {
    const { fixture, element, type, submit } = await render();
    const saved = jest.fn();
    fixture.componentInstance.saved.subscribe(saved);
    api.create.mockResolvedValue(service);
    type('#service-base-url', ' http://radarr:7878 ');
    type('#service-api-key', 'key');
    await submit();
    expect(api.create).toHaveBeenCalledWith({ baseUrl: 'http://radarr:7878', apiKey: 'key' });
    expect(element.querySelector('.success')?.textContent).toContain('Found radarr “Movies” 5.14.0, API v3.');
    expect(saved).toHaveBeenCalledWith(service);
  });

  it('shows the server’s exact failure message', async () => {
    const { element, type, submit } = await render();
    api.create.mockRejectedValue(
      new HttpErrorResponse({
        status: 502,
        error: { statusCode: 502, error: 'Bad Gateway', message: 'connect ECONNREFUSED 10.0.0.5:7878' },
      }),
    );
    type('#service-base-url', 'http://radarr:7878');
    type('#service-api-key', 'key');
    await submit();
    expect(element.querySelector('[role=alert]')?.textContent?.trim()).toBe('connect ECONNREFUSED 10.0.0.5:7878');
  });

  it('edits without sending an empty key', async () => {
    const { fixture, type, submit } = await render();
    fixture.componentRef.setInput('service', service);
    fixture.detectChanges();
    api.update.mockResolvedValue(service);
    type('#service-base-url', 'http://radarr:7879');
    await submit();
    expect(api.update).toHaveBeenCalledWith('s1', { baseUrl: 'http://radarr:7879' });
  });

  it('knows what a base URL may not hold', () => {
    expect(baseUrlProblem('radarr:7878')).toMatch(/http/);
    expect(baseUrlProblem('http://u:p@radarr')).toMatch(/credentials/);
    expect(baseUrlProblem('http://radarr/?a=1')).toMatch(/query/);
    expect(baseUrlProblem('http://host/radarr/api')).toMatch(/API prefix/);
    expect(baseUrlProblem('https://host/radarr')).toBeNull();
  });
});
