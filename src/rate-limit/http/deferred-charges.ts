import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ConditionalAnswers } from '../../http/conditional-answers';

/** A request's count against its quota, which writes the rate-limit headers and rejects with the 429 when the quota has no room. */
export type Charge = () => Promise<void>;

declare module 'fastify' {
  interface FastifyRequest {
    /** The count put off for a possible 304, until the route settles it; declared by RateLimitModule. */
    deferredCharge: Charge | null;
  }
}

/**
 * The counts PlanThrottlerGuard put off for requests that may be answered
 * 304, paid when the @ConditionalGet() route tells how it answered: nothing
 * for a 304, the count for anything else, an error included.
 */
@Injectable()
export class DeferredCharges extends ConditionalAnswers {
  defer(request: FastifyRequest, charge: Charge): void {
    request.deferredCharge = charge;
  }

  awaits(request: FastifyRequest): boolean {
    return Boolean(request.deferredCharge);
  }

  async settle(request: FastifyRequest, notModified: boolean): Promise<void> {
    const charge = request.deferredCharge;
    if (!charge) return;
    request.deferredCharge = null;
    if (!notModified) await charge();
  }
}
