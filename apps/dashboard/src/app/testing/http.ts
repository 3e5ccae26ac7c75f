import { provideHttpClient } from '@angular/common/http';
import { HttpTestingController, provideHttpClientTesting, TestRequest } from '@angular/common/http/testing';
import { TestBed } from '@angular/core/testing';

/** TestBed with a fake backend; `expect` checks method and URL (with query) of the one pending request. */
export function setUpHttp(): {
  http: () => HttpTestingController;
  expectRequest: (method: string, url: string) => TestRequest;
} {
  let http: HttpTestingController;
  beforeEach(() => {
    TestBed.configureTestingModule({ providers: [provideHttpClient(), provideHttpClientTesting()] });
    http = TestBed.inject(HttpTestingController);
  });
  afterEach(() => http.verify());
  return {
    http: () => http,
    expectRequest: (method, url) => {
      const request = http.expectOne((r) => r.urlWithParams === url);
      expect(request.request.method).toBe(method);
      return request;
    },
  };
}
