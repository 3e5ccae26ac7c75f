import { ServiceUnavailableException } from '@nestjs/common';
import { HealthController } from './health.controller';
import type { HealthService } from './health.service';

/** A health service that says whether the database answers, and counts how often it was asked. */
function health(answers: boolean, loaded = true) {
  const service = {
    asked: 0,
    stateLoaded: () => loaded,
    databaseAnswers: async () => {
      service.asked += 1;
      return answers;
    },
  };
  return service;
}

describe(HealthController.name, () => {
  it('answers liveness without asking the database', () => {
    const service = health(false);
    expect(new HealthController(service as unknown as HealthService).live()).toEqual({ status: 'ok' });
    expect(service.asked).toBe(0);
  });

  it('answers ready with the database up while it answers', async () => {
    const service = health(true);
    await expect(new HealthController(service as unknown as HealthService).ready()).resolves.toEqual({
      status: 'ok',
      database: 'up',
    });
    expect(service.asked).toBe(1);
  });

  it('answers 503 to readiness until the proxy state is loaded and the change listener has connected', async () => {
    const error = await new HealthController(health(true, false) as unknown as HealthService)
      .ready()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableException);
    expect((error as ServiceUnavailableException).message).toMatch(/proxy state is not loaded/);
  });

  it('answers 503 to readiness while the database does not answer', async () => {
    const error = await new HealthController(health(false) as unknown as HealthService)
      .ready()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceUnavailableException);
    expect((error as ServiceUnavailableException).getStatus()).toBe(503);
  });
});
