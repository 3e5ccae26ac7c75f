import { provideHttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { SETTINGS_SECTIONS, SettingsPage } from './settings.page';

describe(SettingsPage.name, () => {
  it('links each section at the top, and a link moves focus to its heading', async () => {
    TestBed.configureTestingModule({
      imports: [SettingsPage],
      providers: [provideHttpClient(), provideHttpClientTesting()],
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
});
