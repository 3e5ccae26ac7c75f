import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import type { HealthResponse } from '@arrbiter/contracts';
import { HealthService } from './health.service';
import { Public, SkipOriginCheck } from '@arrbiter/server/access';

@Public()
@SkipOriginCheck()
@Controller('health')
export class HealthController {
  constructor(private readonly health: HealthService) {}

  /** Liveness: the process answers. No credential, no database or upstream call. */
  @Get()
  live(): HealthResponse {
    return { status: 'ok' };
  }

  /** Readiness: the database answers, and the proxy state is loaded and in step with other replicas. */
  @Get('ready')
  async ready(): Promise<HealthResponse> {
    if (!(await this.health.databaseAnswers())) throw new ServiceUnavailableException('The database does not answer');
    if (!this.health.stateLoaded())
      throw new ServiceUnavailableException('The proxy state is not loaded yet (or the change listener is connecting)');
    return { status: 'ok', database: 'up' };
  }
}
