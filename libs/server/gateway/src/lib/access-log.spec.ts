import { createServer, get, IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppConfig } from '@arrbiter/server/config';
import { buildLoggerOptions, LogOutput } from '@arrbiter/server/http';
import { Logger as NestLogger } from '@nestjs/common';
import { PinoLogger } from 'nestjs-pino';
import { Logger, pino } from 'pino';
import type { Options } from 'pino-http';
import type { UsageCounter } from '@arrbiter/server/usage';
import { AccessLog } from './access-log';
import type { AccessLogFields } from './proxy-context';
import type { ProxyMetering } from './proxy-metering';

type Answer = (request: IncomingMessage, response: ServerResponse, log: AccessLog) => void;

/** Serves one request with `answer` and returns the lines written while it did, by the writer configured. */
async function linesOf(
  writer: AppConfig['accessLogWriter'],
  level: string,
  answer: Answer,
  headers: Record<string, string> = {},
): Promise<string[]> {
  const lines: string[] = [];
  const output = new LogOutput(level, { write: (line: string) => lines.push(line) });
  const [options, destination] = buildLoggerOptions(output).pinoHttp as [Options, LogOutput['destination']];
  // What nestjs-pino's module does when the application starts.
  (PinoLogger as unknown as { root: Logger | undefined }).root = pino(options, destination);
  const log = new AccessLog({ accessLogWriter: writer } as AppConfig, output, null, null);
  await serve(log, answer, headers);
  return lines;
}

/** Serves one request with `answer`, tracked by `log`; resolves once the response has closed. */
async function serve(log: AccessLog, answer: Answer, headers: Record<string, string> = {}): Promise<void> {
  let closed: Promise<unknown> | undefined;
  const server: Server = createServer((request, response) => {
    answer(request, response, log);
    // Registered after the access log's own listener (added as `answer` tracks the call), so by the
    // time this one runs the line is written.
    closed = new Promise((resolve) => response.on('close', resolve));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = server.address() as AddressInfo;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve, reject) => {
      timer = setTimeout(() => reject(new Error('no answer')), 5_000);
      const request = get({ port, host: '127.0.0.1', path: '/proxy/app/api/v3/movie', headers }, (response) => {
        response.resume();
        response.on('end', resolve);
        response.on('error', () => resolve());
      });
      request.on('error', () => resolve());
      request.on('close', () => resolve());
    }).finally(() => clearTimeout(timer));
    // The line is written on the response's 'close', after the client has its answer.
    await closed;
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
}

/** A forwarded call: the handler completes the fields as the forwarding does. */
function forwarded(status: number, learned = false): Answer {
  return (request, response, log) => {
    const fields: AccessLogFields = {
      method: 'GET',
      app: 'homepage',
      proxyId: 'proxy-1',
      path: '/api/v3/movie',
      route: '/api/v3/movie',
      outcome: 'forwarded',
      ...(learned ? { learned: true } : {}),
    };
    log.track(request, response, fields);
    fields.upstreamMs = 1.5;
    response.writeHead(status, { 'Content-Type': 'application/json' });
    response.end('[]');
  };
}

/** A refused call, whose fields hold only what the guard knew. */
const refused: Answer = (request, response, log) => {
  log.track(request, response, { method: 'GET', app: 'nobody', outcome: 'unauthorized' });
  response.writeHead(401);
  response.end();
};

/** The line without what differs from one call to the next (`time` and the durations). */
function comparable(line: string): string {
  return line.replace(/"time":\d+/, '"time":0').replace(/"(responseTime|upstreamMs)":[\d.]+/g, '"$1":0');
}

describe(AccessLog.name, () => {
  afterEach(() => {
    (PinoLogger as unknown as { root: Logger | undefined }).root = undefined;
  });

  it.each([
    ['a forwarded call', forwarded(200)],
    ['a learned call', forwarded(200, true)],
    ['an upstream error (warn)', forwarded(502)],
    ['a refused call', refused],
  ])('writes %s directly exactly as pino writes it', async (_name, answer) => {
    const headers = { 'User-Agent': 'Homepage/1.0 "quoted" \u00e9' };
    const [direct] = await linesOf('direct', 'info', answer, headers);
    const [throughPino] = await linesOf('pino', 'info', answer, headers);
    expect(direct).toBeDefined();
    expect(comparable(direct)).toBe(comparable(throughPino));
    expect(direct.endsWith('}\n')).toBe(true);
    const line = JSON.parse(direct);
    expect(line).toMatchObject({ pid: process.pid, msg: 'proxy request', userAgent: headers['User-Agent'] });
    expect(line.level).toBe(line.status >= 500 ? 40 : 30);
  });

  it("writes no line below the logger's level, and warnings above it", async () => {
    expect(await linesOf('direct', 'warn', forwarded(200))).toEqual([]);
    expect(await linesOf('direct', 'warn', forwarded(503))).toHaveLength(1);
    expect(await linesOf('direct', 'silent', forwarded(503))).toEqual([]);
  });

  describe.each(['usage-counting', 'metrics'] as const)('with BENCH_TOGGLE=%s', (feature) => {
    afterEach(() => jest.restoreAllMocks());

    it('turns the feature off at each odd SIGUSR2 and on at each even one, and the other feature never', async () => {
      // The listener as registered, called as Node calls it on a signal. Not `process.kill` nor
      // `process.emit`: jest gives a test a `process` of its own, which real signals and emits on it may
      // not reach as they reach the real one (the bench sends real signals to a real process).
      const on = jest.spyOn(process, 'on');
      const off = jest.spyOn(process, 'off');
      const logged = jest.spyOn(NestLogger.prototype, 'log').mockImplementation(() => undefined);
      const usage = { count: jest.fn() };
      const metering = { record: jest.fn() };
      const config = { accessLogWriter: 'direct', benchToggle: feature } as AppConfig;
      const output = new LogOutput('silent', { write: () => undefined });
      const toggled = feature === 'metrics' ? metering.record : usage.count;
      const other = feature === 'metrics' ? usage.count : metering.record;
      const log = new AccessLog(config, output, metering as unknown as ProxyMetering, usage as unknown as UsageCounter);
      const registered = on.mock.calls.filter(([event]) => event === 'SIGUSR2').map(([, listener]) => listener);
      expect(registered).toHaveLength(1);
      const signal = registered[0] as () => void;
      try {
        await serve(log, forwarded(200));
        signal();
        await serve(log, forwarded(200));
        await serve(log, forwarded(200));
        signal();
        await serve(log, forwarded(200));
        expect(toggled).toHaveBeenCalledTimes(2);
        expect(other).toHaveBeenCalledTimes(4);
        // Each switch says the state it left, for the bench to check.
        expect(logged.mock.calls.map(([message]) => message)).toEqual([
          `Bench toggle: ${feature} off`,
          `Bench toggle: ${feature} on`,
        ]);
      } finally {
        log.onModuleDestroy();
      }
      expect(off).toHaveBeenCalledWith('SIGUSR2', signal);
    });
  });

  it('listens for no signal without BENCH_TOGGLE', () => {
    const on = jest.spyOn(process, 'on');
    try {
      new AccessLog({ accessLogWriter: 'direct' } as AppConfig, null, null, null).onModuleDestroy();
      expect(on.mock.calls.filter(([event]) => event === 'SIGUSR2')).toEqual([]);
    } finally {
      on.mockRestore();
    }
  });

  it('marks a response the client left before it was finished as aborted, a warning', async () => {
    const answer: Answer = (request, response, log) => {
      log.track(request, response, { method: 'GET', app: 'homepage', outcome: 'forwarded' });
      response.writeHead(200, { 'Content-Length': '10' });
      response.write('12345');
      setTimeout(() => request.socket.destroy(), 20);
    };
    const [direct] = await linesOf('direct', 'info', answer);
    const [throughPino] = await linesOf('pino', 'info', answer);
    expect(JSON.parse(direct)).toMatchObject({ level: 40, status: 'aborted' });
    expect(comparable(direct)).toBe(comparable(throughPino));
  });
});
