/** The requests a plan allows per window. */
export interface PlanLimits {
  readonly perMinute: number;
  readonly perDay: number;
}

/** Whom a request counts against, in the rate limits' own terms; http/ builds it from the request's caller. */
export interface RateLimitedCaller {
  /** Whose windows and places: `account:<id>` for a key, shared by the account's keys, else `ip:<address>`. */
  readonly tracker: string;
  /** The account's plan, whose cap applies; none for an address, which has the `free` plan's. */
  readonly plan: string | undefined;
  readonly limits: PlanLimits;
  /** The key the request carries, whose rejections and ban are its own; none for an address. */
  readonly key: { readonly id: number; readonly accountId: number } | undefined;
}

/**
 * Who is banned for a request's rejections: its key (`key:<id>`), never the
 * key's whole account; on a route with a ban of its own, the key on that
 * route alone (`key:<id>@<route>`). None for an address.
 */
export function banSubjectOf(caller: RateLimitedCaller, ownBanRoute?: string): string | undefined {
  if (caller.key === undefined) return undefined;
  return ownBanRoute === undefined ? `key:${caller.key.id}` : `key:${caller.key.id}@${ownBanRoute}`;
}
