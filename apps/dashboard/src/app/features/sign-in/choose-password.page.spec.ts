import { provideHttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { provideRouter, Router } from '@angular/router';
import type { AdminRole, SessionResponse } from '@arrbiter/contracts';
import { authGuard, choosePasswordGuard } from '../../core/auth.guard';
import { AuthService } from '../../core/auth.service';
import { ChoosePasswordPage, passwordStrength } from './choose-password.page';

const GENERATED = 'Zm9vYmFyYmF6cXV4cXV1eA';
const session = (role: AdminRole, passwordGenerated: boolean): SessionResponse => ({
  username: role === 'owner' ? 'admin' : 'ed',
  role,
  publicUrlSet: true,
  passwordGenerated,
});

/** Lets the page's promise chain (request, session, navigation) finish. */
async function settle(fixture: { whenStable(): Promise<unknown> }): Promise<void> {
  for (let i = 0; i < 5; i += 1) {
    await fixture.whenStable();
    await new Promise((resolve) => setTimeout(resolve, 0));
  }
}

describe(ChoosePasswordPage.name, () => {
  let http: HttpTestingController;
  let auth: AuthService;
  let router: Router;

  beforeEach(() => {
    TestBed.configureTestingModule({
      providers: [
        provideHttpClient(),
        provideHttpClientTesting(),
        provideRouter([
          { path: 'choose-password', canActivate: [choosePasswordGuard], component: ChoosePasswordPage },
          { path: 'sign-in', children: [] },
          { path: '**', canActivate: [authGuard], children: [] },
        ]),
      ],
    });
    http = TestBed.inject(HttpTestingController);
    auth = TestBed.inject(AuthService);
    router = TestBed.inject(Router);
  });
  afterEach(() => http.verify());

  /** Signs in through the service (as the sign-in page does) with the generated password. */
  async function signIn(role: AdminRole, generated = true): Promise<void> {
    const pending = auth.signIn({ username: role === 'owner' ? 'admin' : 'ed', password: GENERATED });
    http.expectOne('/api/auth/sign-in').flush(session(role, generated));
    await pending;
  }

  async function render() {
    const fixture = TestBed.createComponent(ChoosePasswordPage);
    fixture.detectChanges();
    await fixture.whenStable();
    const element = fixture.nativeElement as HTMLElement;
    const type = (selector: string, value: string) => {
      const input = element.querySelector<HTMLInputElement>(selector) as HTMLInputElement;
      input.value = value;
      input.dispatchEvent(new Event('input'));
      fixture.detectChanges();
    };
    const submit = () => {
      element.querySelector('form')?.dispatchEvent(new Event('submit'));
      fixture.detectChanges();
    };
    return { fixture, element, type, submit };
  }

  it('is where every page sends an administrator with a generated password, and nowhere else', async () => {
    await signIn('editor');
    await router.navigateByUrl('/apps?x=1');
    expect(router.url).toBe('/choose-password?next=%2Fapps%3Fx%3D1');
    auth.passwordSettled();
    await router.navigateByUrl('/apps');
    expect(router.url).toBe('/apps');
    await router.navigateByUrl('/choose-password');
    expect(router.url).toBe('/');
  });

  it('asks the new password twice (not the one typed at sign-in), then goes on', async () => {
    await signIn('editor');
    await router.navigateByUrl('/choose-password?next=%2Fapps');
    const { element, type, submit, fixture } = await render();
    expect(element.querySelector('#current-password')).toBeNull();
    expect(element.querySelector('[data-testid=keep]')).toBeNull();
    expect(element.querySelector('label[for=new-password]')?.textContent).toBe('New password');

    type('#new-password', 'short');
    expect(element.querySelector('[data-testid=strength]')?.textContent).toContain('At least 12 characters');
    type('#new-password', 'chosenbyed12');
    expect(element.querySelector('[data-testid=strength]')?.getAttribute('data-level')).toBe('fair');
    type('#new-password', 'chosen by ed 1234');
    expect(element.querySelector('[data-testid=strength]')?.getAttribute('data-level')).toBe('strong');
    type('#repeat-password', 'chosen by ed 12345');
    submit();
    expect(element.querySelector('[role=alert]')?.textContent).toContain('The two new passwords differ');
    http.expectNone('/api/auth/password');

    type('#repeat-password', 'chosen by ed 1234');
    submit();
    const put = http.expectOne({ method: 'PUT', url: '/api/auth/password' });
    expect(put.request.body).toEqual({ currentPassword: GENERATED, newPassword: 'chosen by ed 1234' });
    put.flush(null, { status: 204, statusText: 'No Content' });
    await settle(fixture);
    expect(auth.passwordGenerated()).toBe(false);
    expect(router.url).toBe('/apps');
  });

  it('asks for the generated password when the tab did not sign in with it', async () => {
    const pending = auth.ensureSession();
    http.expectOne('/api/auth/state').flush({ signedIn: true, session: session('viewer', true) });
    await pending;
    await router.navigateByUrl('/choose-password');
    const { element, type, submit } = await render();
    expect(element.querySelector('label[for=current-password]')?.textContent).toBe('Generated password');
    type('#new-password', 'a passphrase of my own');
    type('#repeat-password', 'a passphrase of my own');
    submit();
    expect(element.querySelector('[role=alert]')?.textContent).toContain('Enter the generated password');
    type('#current-password', GENERATED);
    submit();
    http.expectOne('/api/auth/password').flush(null, { status: 204, statusText: 'No Content' });
  });

  it('lets an owner keep the generated password', async () => {
    await signIn('owner');
    await router.navigateByUrl('/choose-password');
    const { element, fixture } = await render();
    const keep = element.querySelector<HTMLButtonElement>('[data-testid=keep]');
    expect(keep?.textContent?.trim()).toBe('Keep the generated password');
    keep?.click();
    http
      .expectOne({ method: 'POST', url: '/api/auth/password/keep' })
      .flush(null, { status: 204, statusText: 'No Content' });
    await fixture.whenStable();
    expect(auth.passwordGenerated()).toBe(false);
    expect(auth.signInPassword()).toBeUndefined();
    expect(router.url).toBe('/');
  });
});

describe(passwordStrength.name, () => {
  it('grades length first, then variety', () => {
    expect(passwordStrength('Ab1!').level).toBe('short');
    expect(passwordStrength('aaaaaaaaaaaaaaaa').level).toBe('weak');
    expect(passwordStrength('abcdefghijkl').level).toBe('weak');
    expect(passwordStrength('abcdefghij12').level).toBe('fair');
    expect(passwordStrength('correct horse battery staple').level).toBe('strong');
  });
});
