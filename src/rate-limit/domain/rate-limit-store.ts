/**
 * A window's name in a key's record: a throttler's name (`minute`, `day`), or
 * a route's own bucket of it when the route sets its own limit for it.
 */
export type WindowName = string;

/**
 * How one request meets a window: counted in it (the default), only judged
 * against it (refused while it is full, counted nowhere in it), or only
 * reported, as it stands.
 */
export type WindowUse = 'count' | 'check' | 'report';

export interface WindowSpec {
  readonly name: WindowName;
  readonly limit: number;
  readonly durationMs: number;
  readonly use?: WindowUse;
}

export interface BanPolicy {
  readonly banAfterRejections: number;
  readonly banMs: number;
  /** How long after the first refusal of an episode refusals are a burst, tallied toward no ban; 0 when absent. */
  readonly burstGraceMs?: number;
}

/** The trackers of callers known only by their client address (`ip:<address>`), which anyone can make up in any number. */
export const ADDRESS_TRACKER_PREFIX = 'ip:';

/** A burst is not abuse: refusals within this long of an episode's first refusal never count toward a ban. */
export const BURST_GRACE_MS = 1_000;

export interface WindowState {
  readonly name: WindowName;
  readonly limit: number;
  /** Requests left in this window after this request. */
  readonly remaining: number;
  /** When the window ends, epoch milliseconds. */
  readonly resetAtMs: number;
}

/** A window as the decision reports it, with its length, for clients that want every window's policy. */
export interface WindowReport extends WindowState {
  readonly durationMs: number;
}

export interface RateLimitDecision {
  readonly allowed: boolean;
  /** Rejected because the key is banned (the ban may have started with this request). */
  readonly banned: boolean;
  /** Whole seconds, at least 1, until a request would be accepted; 0 when allowed. */
  readonly retryAfterSeconds: number;
  /**
   * The window that binds first: fewest remaining, on a tie the one that resets
   * later. While banned: remaining 0 and resetAtMs the end of the ban.
   */
  readonly binding: WindowState;
  /**
   * Every window of the request, in the order they were given, as this request
   * leaves them. While banned: each with remaining 0 and resetAtMs the end of the ban.
   */
  readonly windows: readonly WindowReport[];
  /** The instant the request was judged at, epoch milliseconds (the caller's clock). */
  readonly atMs: number;
}

/**
 * The rate-limit counters: a port with two adapters (memory, Redis) that must
 * behave identically.
 *
 * Semantics, shared by both adapters:
 * - Each window is fixed and starts at the first request a key makes after the
 *   previous window of that name ended; it lasts `durationMs`.
 * - A request is accepted only when every window it is counted in or judged
 *   against (its `use`) has room; it then counts in every window it is counted
 *   in. A rejected request counts in none (it uses no quota). A window only
 *   reported is judged on nothing and changes on nothing but its own end.
 * - A rejection adds one to the `rejected` tally of each full window it was judged against. When a
 *   window's tally goes over `banAfterRejections`, the key is banned for `banMs`
 *   from that moment, and that very request is answered as banned.
 * - Except in a burst: a refusal starts an episode, which the key's next accepted
 *   request ends, and refusals within `burstGraceMs` of the episode's first
 *   refusal add to no tally.
 * - While banned, every request is rejected as banned and counts nowhere.
 * - With a ban subject, the rejections and the ban above are the subject's:
 *   a banned subject is refused while its siblings still count in the windows.
 * - A peek judges a request the same way and changes nothing.
 */
export abstract class RateLimitStore {
  /**
   * Checks and, when accepted, counts one request of `key` in every window,
   * atomically. With a `banSubject` (a key of an account) the windows of `key`
   * (the account) are shared, while the rejections and the ban are the
   * subject's own, in the same atomic step.
   */
  abstract consume(
    key: string,
    windows: readonly WindowSpec[],
    policy: BanPolicy,
    nowMs: number,
    banSubject?: string,
  ): Promise<RateLimitDecision>;

  /**
   * What `consume` would answer for the state as it stands, changing nothing:
   * the request counts in no window and a refusal adds no rejection, so a
   * peek never starts a ban. For answers that must not spend quota (a 304)
   * and for telling a caller its quota. An accepted answer's `remaining` is
   * what is left now, before any request.
   */
  abstract peek(
    key: string,
    windows: readonly WindowSpec[],
    policy: BanPolicy,
    nowMs: number,
    banSubject?: string,
  ): Promise<RateLimitDecision>;

  /**
   * Takes back a request of `key` that an accepted `consume` counted
   * (`counted`, its decision) and that was refused after it: one less in each
   * window it was counted in, while that window is still the one it was
   * counted in. Rejections, bans and episodes are left as they are.
   */
  abstract refund(key: string, windows: readonly WindowSpec[], counted: RateLimitDecision, nowMs: number): Promise<void>;
}
