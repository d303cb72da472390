import type { AnonymousCaller } from '../callers/caller';

/**
 * Whether a key this instance has not verified lately may be looked up for a
 * request from a client address: not while the address is over its keyless
 * limits, so that failed keys stop costing lookups. A port, bound by the rate
 * limits, so that auth asks it without knowing how they count.
 */
export abstract class KeyLookupGate {
  /** Asks the address's windows without counting the request in them. */
  abstract admits(address: AnonymousCaller): Promise<boolean>;
}
