import { TestBed } from '@angular/core/testing';
import { provideRouter, Router } from '@angular/router';
import { ChangesApiService } from './changes-api.service';
import { ChangesPage } from './changes.page';

describe(ChangesPage.name, () => {
  async function render(query: { signIns?: string; objectType?: string } = {}) {
    const list = jest.fn().mockResolvedValue({ items: [], nextCursor: null });
    TestBed.configureTestingModule({
      imports: [ChangesPage],
      providers: [provideRouter([]), { provide: ChangesApiService, useValue: { list } }],
    });
    const navigate = jest.spyOn(TestBed.inject(Router), 'navigate').mockResolvedValue(true);
    const fixture = TestBed.createComponent(ChangesPage);
    for (const [key, value] of Object.entries(query)) fixture.componentRef.setInput(key, value);
    fixture.detectChanges();
    await fixture.whenStable();
    fixture.detectChanges();
    return { element: fixture.nativeElement as HTMLElement, list, navigate };
  }

  it('leaves out sign-ins by default, and the toggle shows them through the URL', async () => {
    const { element, list, navigate } = await render();
    expect(list).toHaveBeenLastCalledWith(expect.objectContaining({ signIns: false }));
    const toggle = element.querySelector('#changes-sign-ins') as HTMLInputElement;
    expect(toggle.checked).toBe(false);
    expect(toggle.closest('label')?.textContent?.trim()).toBe('Show sign-ins');
    toggle.checked = true;
    toggle.dispatchEvent(new Event('change'));
    expect(navigate).toHaveBeenCalledWith([], expect.objectContaining({ queryParams: { signIns: 'true' } }));
  });

  it('asks for everything with ?signIns=true', async () => {
    const { element, list } = await render({ signIns: 'true' });
    expect(list).toHaveBeenLastCalledWith(expect.objectContaining({ signIns: undefined }));
    expect((element.querySelector('#changes-sign-ins') as HTMLInputElement).checked).toBe(true);
  });
});
