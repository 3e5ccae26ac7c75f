import { TestBed } from '@angular/core/testing';
import { AppFormComponent } from './app-form.component';
import { AppsApiService } from './apps-api.service';

describe(AppFormComponent.name, () => {
  let api: { create: jest.Mock; update: jest.Mock };

  async function render() {
    api = { create: jest.fn().mockResolvedValue({ id: 'a1' }), update: jest.fn() };
    TestBed.configureTestingModule({
      imports: [AppFormComponent],
      providers: [{ provide: AppsApiService, useValue: api }],
    });
    const fixture = TestBed.createComponent(AppFormComponent);
    fixture.componentRef.setInput('templates', [
      { id: 't1', name: 'Overseerr', removed: false },
      { id: 't2', name: 'Old', removed: true },
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
    expect(options).toEqual(['No template', 'Overseerr', 'Old (removed)']);
    await type('#app-name', 'Overseerr');
    element.querySelector('form')?.dispatchEvent(new Event('submit'));
    await settle();
    expect(api.create).toHaveBeenCalledWith({ name: 'Overseerr', slug: 'overseerr', templateId: null, active: true });
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
});
