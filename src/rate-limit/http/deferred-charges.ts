import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ConditionalAnswers } from '../../http/conditional-answers';

/** A request's count against its quota, which writes the rate-limit headers and rejects with the 429 when the quota has no room. */
export type Charge = () => Promise<void>;

/**
 * The counts PlanThrottlerGuard put off for requests that may be answered
 * 304, paid when the @ConditionalGet() route tells how it answered: nothing
 * for a 304, the count for anything else, an error included.
 */
@Injectable()
export class DeferredCharges extends ConditionalAnswers {
  // Keyed weakly by the request, so a charge nobody settles goes with its request.
  private readonly charges = new WeakMap<FastifyRequest, Charge>();

  defer(request: FastifyRequest, charge: Charge): void {
    this.charges.set(request, charge);
  }

  awaits(request: FastifyRequest): boolean {
    return this.charges.has(request);
  }

  async settle(request: FastifyRequest, notModified: boolean): Promise<void> {
    const charge = this.charges.get(request);
    if (!charge) return;
    this.charges.delete(request);
    if (!notModified) await charge();
  }
}
