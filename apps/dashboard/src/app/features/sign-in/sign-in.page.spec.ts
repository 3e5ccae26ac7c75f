import { HttpErrorResponse } from '@angular/common/http';
import { TestBed } from '@angular/core/testing';
import { provideRouter, Router } from '@angular/router';
import { AuthService } from '../../core/auth.service';
import type { SignInMethodsResponse } from '@arrbiter/contracts';
import { SignInPage } from './sign-in.page';

describe(SignInPage.name, () => {
  const signIn = jest.fn<Promise<void>, [unknown]>();

  async function render(next?: string, methods: SignInMethodsResponse = { password: true, sso: null }, query = '') {
    signIn.mockReset();
    TestBed.configureTestingModule({
      imports: [SignInPage],
      providers: [
        provideRouter([{ path: '**', children: [] }]),
        { provide: AuthService, useValue: { signIn, methods: () => Promise.resolve(methods) } },
      ],
    });
    const router = TestBed.inject(Router);
    await router.navigateByUrl(next ? `/sign-in?next=${encodeURIComponent(next)}` : `/sign-in${query}`);
    const fixture = TestBed.createComponent(SignInPage);
    fixture.detectChanges();
    await fixture.whenStable();
    fixture.detectChanges();
    const element = fixture.nativeElement as HTMLElement;
    const type = (selector: string, value: string) => {
      const input = element.querySelector<HTMLInputElement>(selector) as HTMLInputElement;
      input.value = value;
      input.dispatchEvent(new Event('input'));
    };
    const submit = async () => {
      element.querySelector('form')?.dispatchEvent(new Event('submit'));
      await fixture.whenStable();
      fixture.detectChanges();
    };
    return { fixture, element, router, type, submit };
  }

  it('labels its fields for assistive technology', async () => {
    const { element } = await render();
    expect(element.querySelector('label[for=username]')?.textContent).toBe('Username');
    expect(element.querySelector('label[for=password]')?.textContent).toBe('Password');
  });

  it('asks for both fields before calling the server', async () => {
    const { element, submit } = await render();
    await submit();
    expect(signIn).not.toHaveBeenCalled();
    expect(element.querySelector('[role=alert]')?.textContent).toContain('Enter your username and password');
  });

  it('signs in and goes back where the administrator was', async () => {
    const { router, type, submit } = await render('/apps?x=1');
    signIn.mockResolvedValue();
    type('#username', 'admin');
    type('#password', 'secret');
    await submit();
    expect(signIn).toHaveBeenCalledWith({ username: 'admin', password: 'secret' });
    expect(router.url).toBe('/apps?x=1');
  });

  it('never follows a next URL to another origin', async () => {
    const { router, type, submit } = await render('//evil.example/x');
    signIn.mockResolvedValue();
    type('#username', 'admin');
    type('#password', 'secret');
    await submit();
    expect(router.url).toBe('/');
  });

  it('says so when the credentials are wrong and clears the password', async () => {
    const { element, type, submit } = await render();
    signIn.mockRejectedValue(new HttpErrorResponse({ status: 401, statusText: 'Unauthorized' }));
    type('#username', 'admin');
    type('#password', 'wrong');
    await submit();
    expect(element.querySelector('[role=alert]')?.textContent).toContain('Wrong username or password');
    expect(element.querySelector<HTMLInputElement>('#password')?.value).toBe('');
  });

  it('offers the single sign-on button beside the password form', async () => {
    const { element } = await render(undefined, { password: true, sso: { label: 'Sign in with auth.example.com' } });
    const button = element.querySelector<HTMLAnchorElement>('[data-testid=sso-button]');
    expect(button?.textContent?.trim()).toBe('Sign in with auth.example.com');
    expect(button?.getAttribute('href')).toBe('api/auth/oidc/login');
    expect(element.querySelector('#password')).not.toBeNull();
  });

  it('leaves the password form out when password sign-in is off', async () => {
    const { element } = await render(undefined, { password: false, sso: { label: 'Sign in with SSO' } });
    expect(element.querySelector('#password')).toBeNull();
    expect(element.querySelector('[data-testid=sso-button]')).not.toBeNull();
  });

  it('says why single sign-on sent the browser back', async () => {
    const { element } = await render(undefined, { password: true, sso: { label: 'SSO' } }, '?sso=no-account');
    expect(element.querySelector('[data-testid=sso-error]')?.textContent).toContain('has no Arrbiter account');
  });
});
