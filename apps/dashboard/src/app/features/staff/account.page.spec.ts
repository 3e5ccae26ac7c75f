import { TestBed } from '@angular/core/testing';
import { AuthService } from '../../core/auth.service';
import { AccountPage, MIN_PASSWORD_LENGTH } from './account.page';
import { StaffApiService } from './staff-api.service';

describe(AccountPage.name, () => {
  afterEach(() => document.body.replaceChildren());

  it('checks the password form itself: each message marks, describes and focuses the field it is about', async () => {
    const api = { sessions: jest.fn().mockResolvedValue([]), changePassword: jest.fn() };
    TestBed.configureTestingModule({
      imports: [AccountPage],
      providers: [
        { provide: StaffApiService, useValue: api },
        {
          provide: AuthService,
          useValue: {
            username: () => 'owner',
            role: () => 'owner',
            can: () => true,
            methods: () => Promise.resolve({ password: true }),
          },
        },
      ],
    });
    const fixture = TestBed.createComponent(AccountPage);
    const element = fixture.nativeElement as HTMLElement;
    document.body.appendChild(element);
    const settle = async () => {
      fixture.detectChanges();
      await fixture.whenStable();
      fixture.detectChanges();
    };
    const type = (id: string, value: string) => {
      const input = element.querySelector(`#${id}`) as HTMLInputElement;
      input.value = value;
      input.dispatchEvent(new Event('input'));
    };
    await settle();
    const form = element.querySelector('form') as HTMLFormElement;
    expect(form.hasAttribute('novalidate')).toBe(true);
    const cases: [string, string][] = [
      ['current-password', 'Enter your current password.'],
      ['new-password', `at least ${MIN_PASSWORD_LENGTH} characters`],
      ['repeat-password', 'The two new passwords differ.'],
    ];
    const fill = [
      () => undefined,
      () => type('current-password', 'old secret'),
      () => type('new-password', 'x'.repeat(MIN_PASSWORD_LENGTH)),
    ];
    for (const [index, [field, message]] of cases.entries()) {
      fill[index]();
      form.dispatchEvent(new Event('submit'));
      await settle();
      expect(element.querySelector('#password-problem')?.textContent).toContain(message);
      const input = element.querySelector(`#${field}`) as HTMLInputElement;
      expect(input.getAttribute('aria-invalid')).toBe('true');
      expect(input.getAttribute('aria-describedby')?.split(' ')).toContain('password-problem');
      expect(document.activeElement).toBe(input);
      const others = cases.map(([id]) => id).filter((id) => id !== field);
      for (const id of others) expect(element.querySelector(`#${id}`)?.hasAttribute('aria-invalid')).toBe(false);
    }
    expect(api.changePassword).not.toHaveBeenCalled();
  });
});
