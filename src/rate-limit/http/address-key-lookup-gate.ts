import { Injectable } from '@nestjs/common';
import type { AnonymousCaller } from '../../callers/caller';
import { KeyLookupGate } from '../../http/key-lookup-gate';
import { planWindowsOf, RateLimiter } from '../application/rate-limiter';
import { rateLimitedCallerOf } from './rate-limited-caller';

/** Failed keys count in their address's keyless windows; while those have no room, no unverified key from it is looked up. */
@Injectable()
export class AddressKeyLookupGate extends KeyLookupGate {
  constructor(private readonly limiter: RateLimiter) {
    super();
  }

  async admits(address: AnonymousCaller): Promise<boolean> {
    return (await this.limiter.peek(rateLimitedCallerOf(address).tracker, planWindowsOf(address.limits))).allowed;
  }
}
