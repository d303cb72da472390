import { Injectable } from '@nestjs/common';
import type { FastifyRequest } from 'fastify';
import { ConditionalAnswers } from '../../http/conditional-answers';
import { requestState } from '../../http/request-context';

/** A request's count against its quota, which writes the rate-limit headers and rejects with the 429 when the quota has no room. */
export type Charge = () => Promise<void>;

/**
 * The counts PlanThrottlerGuard put off for requests that may be answered
 * 304, paid when the @ConditionalGet() route tells how it answered: nothing
 * for a 304, the count for anything else, an error included.
 */
@Injectable()
export class DeferredCharges extends ConditionalAnswers {
  defer(request: FastifyRequest, charge: Charge): void {
    requestState(request).deferredCharge = charge;
  }

  awaits(request: FastifyRequest): boolean {
    return requestState(request).deferredCharge !== undefined;
  }

  async settle(request: FastifyRequest, notModified: boolean): Promise<void> {
    const state = requestState(request);
    const charge = state.deferredCharge;
    if (!charge) return;
    state.deferredCharge = undefined;
    if (!notModified) await charge();
  }
}
