import { HttpClient, provideHttpClient, withInterceptors } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting } from '@angular/common/http/testing';
import { PlatformLocation } from '@angular/common';
import { TestBed } from '@angular/core/testing';
import { firstValueFrom } from 'rxjs';
import { baseHrefInterceptor } from './base-href.interceptor';

describe('baseHrefInterceptor', () => {
  function setUp(baseHref: string) {
    TestBed.configureTestingModule({
      providers: [
        provideHttpClient(withInterceptors([baseHrefInterceptor])),
        provideHttpClientTesting(),
        { provide: PlatformLocation, useValue: { getBaseHrefFromDOM: () => baseHref } },
      ],
    });
    return { http: TestBed.inject(HttpClient), backend: TestBed.inject(HttpTestingController) };
  }

  it('puts API calls under the base the server wrote into index.html (a sub-path)', async () => {
    const { http, backend } = setUp('/arrbiter/');
    const answer = firstValueFrom(http.get('/api/auth/session'));
    backend.expectOne('/arrbiter/api/auth/session').flush({});
    await answer;
    backend.verify();
  });

  it('leaves them as they are at the root, and leaves other URLs alone', async () => {
    const { http, backend } = setUp('/');
    const api = firstValueFrom(http.get('/api/auth/session'));
    const other = firstValueFrom(http.get('https://example.com/x'));
    backend.expectOne('/api/auth/session').flush({});
    backend.expectOne('https://example.com/x').flush({});
    await Promise.all([api, other]);
    backend.verify();
  });
});
