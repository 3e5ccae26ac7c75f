import { provideHttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { ActivatedRoute, provideRouter } from '@angular/router';
import { SETTINGS_SECTIONS, SettingsPage } from './settings.page';

describe(SettingsPage.name, () => {
  it('links each section at the top, and a link moves focus to its heading', async () => {
    TestBed.configureTestingModule({
      imports: [SettingsPage],
      providers: [provideHttpClient(), provideHttpClientTesting(), provideRouter([])],
    });
    const fixture = TestBed.createComponent(SettingsPage);
    fixture.detectChanges();
    await fixture.whenStable();
    const element = fixture.nativeElement as HTMLElement;
    const nav = element.querySelector('nav[aria-label="Settings sections"]') as HTMLElement;
    const links = [...nav.querySelectorAll('a')];
    expect(links.map((a) => [a.textContent?.trim(), a.getAttribute('href')])).toEqual(
      SETTINGS_SECTIONS.map((s) => [s.title, `#${s.id}`]),
    );
    for (const [index, section] of SETTINGS_SECTIONS.entries()) {
      const target = element.querySelector(`section#${section.id}`) as HTMLElement;
      expect(target.querySelector('h2')?.textContent?.trim()).toBe(section.title);
      const click = new MouseEvent('click', { cancelable: true });
      links[index].dispatchEvent(click);
      expect(click.defaultPrevented).toBe(true);
      expect(document.activeElement).toBe(target.querySelector('h2'));
    }
    TestBed.inject(HttpTestingController).match(() => true);
  });

  it('holds the template repository settings, and a link from Templates lands on them', async () => {
    TestBed.configureTestingModule({
      imports: [SettingsPage],
      providers: [
        provideHttpClient(),
        provideHttpClientTesting(),
        provideRouter([]),
        { provide: ActivatedRoute, useValue: { snapshot: { fragment: 'template-repository' } } },
      ],
    });
    const fixture = TestBed.createComponent(SettingsPage);
    document.body.appendChild(fixture.nativeElement);
    fixture.detectChanges();
    await fixture.whenStable();
    const element = fixture.nativeElement as HTMLElement;
    const http = TestBed.inject(HttpTestingController);
    http
      .expectOne('/api/admin/v1/settings/template-repository')
      .flush({ url: 'https://example.test/t.git', ref: 'main', path: 'templates', intervalMinutes: 60 });
    await new Promise((resolve) => setTimeout(resolve));
    fixture.detectChanges();
    await fixture.whenStable();
    const section = element.querySelector('section#template-repository') as HTMLElement;
    expect(document.activeElement).toBe(section.querySelector('h2'));
    // Not an owner (no session in this test): the settings, read-only.
    expect(section.textContent).toContain('https://example.test/t.git');
    expect(section.textContent).toContain('60 minutes');
    http.match(() => true);
    fixture.nativeElement.remove();
  });
});
