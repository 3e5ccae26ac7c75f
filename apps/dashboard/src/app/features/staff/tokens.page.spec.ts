import { TestBed } from '@angular/core/testing';
import { AuthService } from '../../core/auth.service';
import { StaffApiService } from './staff-api.service';
import { TokensPage } from './tokens.page';

describe(TokensPage.name, () => {
  afterEach(() => document.body.replaceChildren());

  it('checks an empty token name itself: no browser tooltip, its own message tied to the field, focus on it', async () => {
    const api = { tokens: jest.fn().mockResolvedValue([]), createToken: jest.fn() };
    TestBed.configureTestingModule({
      imports: [TokensPage],
      providers: [
        { provide: StaffApiService, useValue: api },
        { provide: AuthService, useValue: { username: () => 'owner', role: () => 'owner', can: () => true } },
      ],
    });
    const fixture = TestBed.createComponent(TokensPage);
    const element = fixture.nativeElement as HTMLElement;
    document.body.appendChild(element);
    const settle = async () => {
      fixture.detectChanges();
      await fixture.whenStable();
      fixture.detectChanges();
    };
    await settle();
    const form = element.querySelector('form') as HTMLFormElement;
    expect(form.hasAttribute('novalidate')).toBe(true);
    const name = element.querySelector('#token-name') as HTMLInputElement;
    expect(name.getAttribute('aria-describedby')).toBe('token-name-hint');
    form.dispatchEvent(new Event('submit'));
    await settle();
    expect(element.querySelector('#token-problem')?.textContent).toContain('Name the token');
    expect(name.getAttribute('aria-invalid')).toBe('true');
    expect(name.getAttribute('aria-describedby')?.split(' ')).toContain('token-problem');
    expect(document.activeElement).toBe(name);
    expect(api.createToken).not.toHaveBeenCalled();
  });
});
