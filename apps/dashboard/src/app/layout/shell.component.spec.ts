import { signal } from '@angular/core';
import { TestBed } from '@angular/core/testing';
import { provideRouter } from '@angular/router';
import { AuthService } from '../core/auth.service';
import { ShellComponent } from './shell.component';
import { WarningsApiService } from '../features/warnings/warnings-api.service';

describe(ShellComponent.name, () => {
  afterEach(() => localStorage.clear());

  function render(publicUrlSet: boolean) {
    const auth = {
      username: signal('admin'),
      role: signal('owner'),
      publicUrlSet: signal(publicUrlSet),
      can: () => true,
      signOut: jest.fn(),
    };
    TestBed.configureTestingModule({
      imports: [ShellComponent],
      providers: [
        provideRouter([]),
        { provide: AuthService, useValue: auth },
        {
          provide: WarningsApiService,
          useValue: { openCount: jest.fn().mockResolvedValue({ count: 12, more: false }) },
        },
      ],
    });
    const fixture = TestBed.createComponent(ShellComponent);
    fixture.detectChanges();
    return { fixture, element: fixture.nativeElement as HTMLElement };
  }

  const notice = (element: HTMLElement) => element.querySelector<HTMLElement>('[data-testid="public-url-notice"]');

  it('asks a signed-in admin to set PUBLIC_URL when the server runs without it, as a status message', () => {
    const { element } = render(false);
    expect(notice(element)?.getAttribute('role')).toBe('status');
    expect(notice(element)?.textContent).toContain('PUBLIC_URL');
  });

  it('shows the open-warnings count by the Warnings link, in its accessible name', async () => {
    const { fixture, element } = render(true);
    await fixture.whenStable();
    fixture.detectChanges();
    const link = element.querySelector('[data-testid="nav-warnings"]');
    expect(link?.getAttribute('aria-label')).toBe('Warnings, 12 open');
    expect(link?.querySelector('.nav-count')?.textContent?.trim()).toBe('12');
  });

  it('says nothing when PUBLIC_URL is set', () => {
    expect(notice(render(true).element)).toBeNull();
  });

  it('stays dismissed in this browser once dismissed', () => {
    const { fixture, element } = render(false);
    notice(element)?.querySelector('button')?.click();
    fixture.detectChanges();
    expect(notice(element)).toBeNull();
    TestBed.resetTestingModule();
    expect(notice(render(false).element)).toBeNull();
  });
});
