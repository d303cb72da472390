/** The requests a plan allows per window; a caller carries its plan's, or the anonymous ones. */
export interface PlanLimits {
  readonly perMinute: number;
  readonly perDay: number;
}

/** A request that carries an active API key. */
export interface KeyCaller {
  readonly kind: 'key';
  readonly keyId: number;
  /** The key's account, whose keys share one quota. */
  readonly accountId: number;
  /** The account's plan. */
  readonly plan: string;
  readonly limits: PlanLimits;
  /** What the key may do, e.g. `pets:read`; a route may require one (auth's @RequireScope()). */
  readonly scopes: readonly string[];
}

/** A request without a valid key, known only by its client address. */
export interface AnonymousCaller {
  readonly kind: 'anonymous';
  readonly address: string;
  readonly limits: PlanLimits;
  /** A key came with the request, but was not looked up: its address was over its keyless limits (KeyLookupGate). */
  readonly keyNotLookedUp?: boolean;
}

/**
 * Who sends a request, looked up once (CallerLookup, bound by auth) and read
 * as data by every step after the first ask.
 */
export type Caller = KeyCaller | AnonymousCaller;
