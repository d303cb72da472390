import type { BanPolicy, RateLimitDecision, WindowName, WindowSpec, WindowState } from './rate-limit-store';

/**
 * The counting rules of `RateLimitStore`, as a pure function of one key's
 * stored state and the caller's clock. The Redis adapter's Lua script repeats
 * these rules line for line; the contract specs hold the two together.
 *
 * One choice the port leaves open: a ban spends the rejections that caused it
 * (every window's tally starts again at 0). A client still over its daily
 * quota when the ban ends is answered `rate_limited` again, and banned again
 * only if it keeps sending past the threshold once more; without the reset one
 * retry at the end of a ban would earn a new ban at once.
 */
export interface StoredWindow {
  readonly count: number;
  readonly rejected: number;
  readonly resetAtMs: number;
}

export interface StoredKeyState {
  readonly windows: Readonly<Partial<Record<WindowName, StoredWindow>>>;
  /** 0 when not banned. */
  readonly bannedUntilMs: number;
}

export interface ConsumeOutcome {
  /** The state to store; the very object passed in when nothing changed (a banned request). */
  readonly state: StoredKeyState;
  readonly decision: RateLimitDecision;
}

interface LiveWindow extends StoredWindow {
  readonly spec: WindowSpec;
}

export function consumeRequest(
  stored: StoredKeyState | undefined,
  specs: readonly WindowSpec[],
  policy: BanPolicy,
  nowMs: number,
): ConsumeOutcome {
  if (specs.length === 0) throw new Error('A rate limit needs at least one window');
  const now = Math.floor(nowMs);
  const live = specs.map((spec) => liveWindow(stored?.windows[spec.name], spec, now));
  const bannedUntilMs = stored?.bannedUntilMs ?? 0;

  if (stored && bannedUntilMs > now) {
    return { state: stored, decision: bannedDecision(live, bannedUntilMs, now) };
  }

  const full = live.filter((window) => window.count >= window.spec.limit);
  if (full.length === 0) {
    const counted = live.map((window) => ({ ...window, count: window.count + 1 }));
    return {
      state: toState(counted, 0),
      decision: { allowed: true, banned: false, retryAfterSeconds: 0, binding: pickBinding(counted) },
    };
  }

  const tallied = live.map((window) => (full.includes(window) ? { ...window, rejected: window.rejected + 1 } : window));
  if (tallied.some((window) => window.rejected > policy.banAfterRejections)) {
    const banEndMs = now + policy.banMs;
    const spent = tallied.map((window) => ({ ...window, rejected: 0 }));
    return { state: toState(spent, banEndMs), decision: bannedDecision(spent, banEndMs, now) };
  }

  const acceptedAgainAtMs = Math.max(...full.map((window) => window.resetAtMs));
  return {
    state: toState(tallied, 0),
    decision: {
      allowed: false,
      banned: false,
      retryAfterSeconds: secondsUntil(acceptedAgainAtMs, now),
      binding: pickBinding(tallied),
    },
  };
}

/** When every window and the ban of `state` have ended, so it can be forgotten. */
export function forgetAtMs(state: StoredKeyState): number {
  const resets = Object.values(state.windows).map((window) => window?.resetAtMs ?? 0);
  return Math.max(state.bannedUntilMs, ...resets);
}

/** Whole seconds from `nowMs` to `untilMs`, rounded up, never below 1. */
export function secondsUntil(untilMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((untilMs - nowMs) / 1000));
}

function liveWindow(stored: StoredWindow | undefined, spec: WindowSpec, now: number): LiveWindow {
  if (stored && now < stored.resetAtMs) return { ...stored, spec };
  return { spec, count: 0, rejected: 0, resetAtMs: now + spec.durationMs };
}

function bannedDecision(live: readonly LiveWindow[], banEndMs: number, now: number): RateLimitDecision {
  return {
    allowed: false,
    banned: true,
    retryAfterSeconds: secondsUntil(banEndMs, now),
    binding: { ...pickBinding(live), remaining: 0, resetAtMs: banEndMs },
  };
}

function pickBinding(live: readonly LiveWindow[]): WindowState {
  const states = live.map(
    (window): WindowState => ({
      name: window.spec.name,
      limit: window.spec.limit,
      remaining: Math.max(0, window.spec.limit - window.count),
      resetAtMs: window.resetAtMs,
    }),
  );
  return states.reduce((best, candidate) =>
    candidate.remaining < best.remaining || (candidate.remaining === best.remaining && candidate.resetAtMs > best.resetAtMs)
      ? candidate
      : best,
  );
}

function toState(live: readonly LiveWindow[], bannedUntilMs: number): StoredKeyState {
  const windows: Partial<Record<WindowName, StoredWindow>> = {};
  for (const { spec, count, rejected, resetAtMs } of live) windows[spec.name] = { count, rejected, resetAtMs };
  return { windows, bannedUntilMs };
}
