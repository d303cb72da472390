/** One of a caller's places for a request in flight, held until the request's answer is done. */
export interface InFlightSlot {
  /** Gives the place back; a second call does nothing. Never rejects: a place that cannot be given back lapses with its lease. */
  release(): Promise<void>;
}

/**
 * The requests each caller has in flight: a port with two adapters (memory,
 * Redis) that must behave identically while their holders live.
 *
 * - `acquire` takes a place for `key` when fewer than `cap` are held, in one
 *   atomic step however many instances ask at once, and answers null when
 *   `cap` are held; a refusal holds nothing.
 * - A place is held until it is released. In Redis, shared by instances that
 *   may die, it is a lease its instance renews while the request runs, so the
 *   places of an instance that died lapse within seconds.
 */
export abstract class ConcurrencyStore {
  abstract acquire(key: string, cap: number): Promise<InFlightSlot | null>;
}
