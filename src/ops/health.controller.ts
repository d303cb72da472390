import { Controller, Get, Header } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { SkipThrottle } from '@nestjs/throttler';
import { Public } from '../http/public.decorator';
import type { OpsPortRouteConfig } from './ops-port';
import { SERVED_UNDER_PRESSURE } from './overload';
import { Readiness, ReadinessService } from './readiness.service';

/** Probes for orchestrators and load balancers: outside /v1, no key, never cached, answered under load too (docs/adr/0036). */
@Public()
@SkipThrottle()
@Controller()
export class HealthController {
  constructor(private readonly readiness: ReadinessService) {}

  /** Liveness: the process answers HTTP. Dependencies are left out on purpose, so a database outage never restarts every replica. */
  @Get('healthz')
  @RouteConfig({ ...SERVED_UNDER_PRESSURE, opsPort: 'also' } satisfies OpsPortRouteConfig)
  @Header('Cache-Control', 'no-store')
  healthz(): { status: 'ok' } {
    return { status: 'ok' };
  }

  /** Readiness: every required dependency answers in time; an optional one that does not (a read replica) is reported degraded. */
  @Get('readyz')
  @RouteConfig({ ...SERVED_UNDER_PRESSURE, opsPort: 'only' } satisfies OpsPortRouteConfig)
  @Header('Cache-Control', 'no-store')
  readyz(): Promise<Readiness> {
    return this.readiness.check();
  }
}
