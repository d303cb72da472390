import type { Caller } from '../../callers/caller';
import { ADDRESS_TRACKER_PREFIX } from '../domain/rate-limit-store';
import type { RateLimitedCaller } from '../domain/rate-limited-caller';

/** The request's caller as the rate limits count it: a key by its account, shared by the account's keys, else the client address. */
export function rateLimitedCallerOf(caller: Caller): RateLimitedCaller {
  if (caller.kind === 'key') {
    return { tracker: `account:${caller.accountId}`, plan: caller.plan, limits: caller.limits, key: { id: caller.keyId, accountId: caller.accountId } };
  }
  return { tracker: `${ADDRESS_TRACKER_PREFIX}${caller.address}`, plan: undefined, limits: caller.limits, key: undefined };
}
