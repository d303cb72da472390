/** The requests a caller may make per window: its plan's, or the anonymous ones. */
export interface CallerLimits {
  readonly perMinute: number;
  readonly perDay: number;
}

/** A request that carries an active API key. */
export interface KeyCaller {
  readonly kind: 'key';
  readonly keyId: number;
  /** The key's account, whose keys share one quota. */
  readonly accountId: number;
  readonly limits: CallerLimits;
}

/** A request without a valid key, known only by its client address. */
export interface AnonymousCaller {
  readonly kind: 'anonymous';
  readonly address: string;
  readonly limits: CallerLimits;
}

/**
 * Who sends a request, found once by the authentication step (auth's
 * AuthenticationGuard, the first global guard) and read as data by every step after it.
 */
export type Caller = KeyCaller | AnonymousCaller;
