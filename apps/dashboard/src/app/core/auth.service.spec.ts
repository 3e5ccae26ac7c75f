import { provideHttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';
import { AuthService } from './auth.service';

describe(AuthService.name, () => {
  let auth: AuthService;
  let http: HttpTestingController;

  beforeEach(() => {
    TestBed.configureTestingModule({ providers: [provideHttpClient(), provideHttpClientTesting()] });
    auth = TestBed.inject(AuthService);
    http = TestBed.inject(HttpTestingController);
  });
  afterEach(() => http.verify());

  it('knows the administrator once the session answers', async () => {
    const pending = auth.ensureSession();
    http.expectOne('/api/auth/state').flush({ signedIn: true, session: { username: 'admin', role: 'editor' } });
    await expect(pending).resolves.toBe(true);
    expect(auth.username()).toBe('admin');
    expect(auth.role()).toBe('editor');
    expect([auth.can('viewer'), auth.can('editor'), auth.can('owner')]).toEqual([true, true, false]);
    // Asked once: a second call answers from memory.
    await expect(auth.ensureSession()).resolves.toBe(true);
  });

  it('asks the state, which says signed out with a 200, and treats failures as errors', async () => {
    const signedOut = auth.ensureSession();
    http.expectOne('/api/auth/state').flush({ signedIn: false });
    await expect(signedOut).resolves.toBe(false);
    expect(auth.username()).toBeNull();
    expect(auth.can('viewer')).toBe(false);

    const failing = auth.ensureSession(true);
    http.expectOne('/api/auth/state').flush({}, { status: 503, statusText: 'Service Unavailable' });
    await expect(failing).rejects.toBeTruthy();
  });

  it('signs in and out through the auth API', async () => {
    const signIn = auth.signIn({ username: 'admin', password: 'pw' });
    const request = http.expectOne('/api/auth/sign-in');
    expect(request.request.method).toBe('POST');
    expect(request.request.body).toEqual({ username: 'admin', password: 'pw' });
    request.flush({ username: 'admin', role: 'owner' });
    await signIn;
    expect(auth.signedIn()).toBe(true);
    expect(auth.can('owner')).toBe(true);

    const signOut = auth.signOut();
    http.expectOne('/api/auth/sign-out').flush(null, { status: 204, statusText: 'No Content' });
    await signOut;
    expect(auth.signedIn()).toBe(false);
  });
});
