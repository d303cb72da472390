import { Controller, Get, Res } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { SkipThrottle } from '@nestjs/throttler';
import type { FastifyReply } from 'fastify';
import { Public } from '../http/public.decorator';
import { OpsMetrics } from './metrics';
import type { OpsPortRouteConfig } from './ops-port';
import { SERVED_UNDER_PRESSURE } from './overload';

/** Prometheus scrapes each replica here (text exposition format); no key, outside /v1. */
@Public()
@SkipThrottle()
@Controller()
export class MetricsController {
  constructor(private readonly metrics: OpsMetrics) {}

  @Get('metrics')
  // The figures an operator needs most while the service sheds load (docs/adr/0036).
  @RouteConfig({ ...SERVED_UNDER_PRESSURE, opsPort: 'only' } satisfies OpsPortRouteConfig)
  async metricsText(@Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    reply.header('Content-Type', this.metrics.contentType).header('Cache-Control', 'no-store');
    return this.metrics.render();
  }
}
