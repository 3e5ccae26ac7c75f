import { AsyncLocalStorage, AsyncResource } from 'node:async_hooks';
import { CallHandler, ExecutionContext, Injectable, NestInterceptor, UseInterceptors } from '@nestjs/common';
import { ExternalContextCreator } from '@nestjs/core';
import { Test } from '@nestjs/testing';
import { tap, type Observable } from 'rxjs';
import { PROXY_CONTEXT } from './proxy-gateway';

/**
 * `patches/@nestjs+core+11.2.10.patch` backports Nest 12's `bindAsyncScope` into Nest 11's
 * `InterceptorsConsumer`: the static `AsyncResource.bind` it replaces cost the proxy route most of its
 * pipeline overhead (docs/performance-log.md). These tests fail when the patch is not applied, and prove
 * that what it must keep still holds: the handler runs in the caller's async context.
 */
const store = new AsyncLocalStorage<string>();

@Injectable()
class Around implements NestInterceptor {
  readonly seen: (string | undefined)[] = [];
  intercept(_context: ExecutionContext, next: CallHandler): Observable<unknown> {
    this.seen.push(store.getStore());
    return next.handle().pipe(tap(() => this.seen.push(store.getStore())));
  }
}

@Injectable()
@UseInterceptors(Around)
class Handler {
  readonly seen: (string | undefined)[] = [];
  run(): string {
    this.seen.push(store.getStore());
    return 'done';
  }
}

async function pipeline() {
  const moduleRef = await Test.createTestingModule({ providers: [Handler, Around] }).compile();
  const handler = moduleRef.get(Handler);
  const run = moduleRef
    .get(ExternalContextCreator)
    .create(
      handler,
      handler.run,
      'run',
      undefined,
      undefined,
      undefined,
      undefined,
      { interceptors: true },
      PROXY_CONTEXT,
    );
  return { run, handler, around: moduleRef.get(Around) };
}

describe('Nest interceptors on the proxy route (patched InterceptorsConsumer)', () => {
  afterEach(() => jest.restoreAllMocks());

  it('never calls the static AsyncResource.bind', async () => {
    const { run } = await pipeline();
    const bind = jest.spyOn(AsyncResource, 'bind');
    await expect(run()).resolves.toBe('done');
    expect(bind).not.toHaveBeenCalled();
  });

  it('runs the interceptor and the handler in the async context of the call', async () => {
    const { run, handler, around } = await pipeline();
    await Promise.all([store.run('first', () => run()), store.run('second', () => run())]);
    expect(handler.seen.sort()).toEqual(['first', 'second']);
    expect(around.seen.sort()).toEqual(['first', 'first', 'second', 'second']);
  });
});
