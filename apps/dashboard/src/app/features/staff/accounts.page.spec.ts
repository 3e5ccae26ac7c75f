import { TestBed } from '@angular/core/testing';
import { AuthService } from '../../core/auth.service';
import { AccountsPage } from './accounts.page';
import { StaffApiService } from './staff-api.service';

describe(AccountsPage.name, () => {
  async function render() {
    const api = { accounts: jest.fn().mockResolvedValue([]), createAccount: jest.fn() };
    TestBed.configureTestingModule({
      imports: [AccountsPage],
      providers: [
        { provide: StaffApiService, useValue: api },
        { provide: AuthService, useValue: { username: () => 'owner', role: () => 'owner', can: () => true } },
      ],
    });
    const fixture = TestBed.createComponent(AccountsPage);
    const element = fixture.nativeElement as HTMLElement;
    document.body.appendChild(element);
    const settle = async () => {
      fixture.detectChanges();
      await fixture.whenStable();
      fixture.detectChanges();
    };
    await settle();
    [...element.querySelectorAll('button')].find((b) => b.textContent?.trim() === 'Add account')?.click();
    await settle();
    return { api, element, settle };
  }

  afterEach(() => document.body.replaceChildren());

  it('checks the new account form itself: no browser tooltip, its own message tied to the field, focus on it', async () => {
    const { api, element, settle } = await render();
    const form = element.querySelector('form') as HTMLFormElement;
    expect(form.hasAttribute('novalidate')).toBe(true);
    form.dispatchEvent(new Event('submit'));
    await settle();
    const username = element.querySelector('#account-username') as HTMLInputElement;
    const problem = element.querySelector('#account-problem') as HTMLElement;
    expect(problem.textContent).toContain('Usernames are');
    expect(username.getAttribute('aria-invalid')).toBe('true');
    expect(username.getAttribute('aria-describedby')?.split(' ')).toContain('account-problem');
    expect(document.activeElement).toBe(username);
    expect(api.createAccount).not.toHaveBeenCalled();

    username.value = 'alice';
    username.dispatchEvent(new Event('input'));
    const password = element.querySelector('#account-password') as HTMLInputElement;
    password.value = 'short';
    password.dispatchEvent(new Event('input'));
    form.dispatchEvent(new Event('submit'));
    await settle();
    expect(username.hasAttribute('aria-invalid')).toBe(false);
    expect(password.getAttribute('aria-invalid')).toBe('true');
    expect(password.getAttribute('aria-describedby')?.split(' ')).toContain('account-problem');
    expect(document.activeElement).toBe(password);
  });
});
