import type { BanPolicy, RateLimitDecision, WindowName, WindowReport, WindowSpec, WindowState } from './rate-limit-store';

/** One window of a key's stored state. */
export interface StoredWindow {
  readonly count: number;
  readonly rejected: number;
  readonly resetAtMs: number;
}

export interface StoredKeyState {
  readonly windows: Readonly<Partial<Record<WindowName, StoredWindow>>>;
  /** 0 when not banned. */
  readonly bannedUntilMs: number;
  /** When the first refusal of the current episode came, which the next accepted request ends; 0 or absent when none. */
  readonly refusedSinceMs?: number;
}

export interface ConsumeOutcome {
  /** The state to store; the very object passed in when nothing changed (a banned request). */
  readonly state: StoredKeyState;
  readonly decision: RateLimitDecision;
}

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
 *
 * A burst is not abuse: a refusal opens an episode (or continues the open
 * one), which the next accepted request or a ban closes, and refusals within
 * `burstGraceMs` of its first refusal are answered but tallied nowhere.
 *
 * Runs on every request, so it is written with plain loops over the windows;
 * the working copies of the windows become the new state.
 */
export function consumeRequest(
  stored: StoredKeyState | undefined,
  specs: readonly WindowSpec[],
  policy: BanPolicy,
  nowMs: number,
): ConsumeOutcome {
  const now = Math.floor(nowMs);
  const live = liveWindows(stored, specs, now);
  const bannedUntilMs = stored?.bannedUntilMs ?? 0;

  if (stored && bannedUntilMs > now) {
    return { state: stored, decision: bannedDecision(specs, live, bannedUntilMs, now) };
  }

  if (!live.some((window, i) => isFull(window, specs[i]))) {
    for (let i = 0; i < specs.length; i++) if (isCounted(specs[i])) live[i].count += 1;
    return {
      state: toState(stored, specs, live, 0, 0),
      decision: { allowed: true, banned: false, retryAfterSeconds: 0, ...describeWindows(specs, live, now) },
    };
  }

  const refusedSinceMs = stored?.refusedSinceMs || now;
  const tallied = now >= refusedSinceMs + (policy.burstGraceMs ?? 0);
  let acceptedAgainAtMs = 0;
  let overBanThreshold = false;
  for (let i = 0; i < specs.length; i++) {
    const window = live[i];
    if (!isFull(window, specs[i])) continue;
    if (tallied) window.rejected += 1;
    acceptedAgainAtMs = Math.max(acceptedAgainAtMs, window.resetAtMs);
    if (window.rejected > policy.banAfterRejections) overBanThreshold = true;
  }
  if (overBanThreshold) {
    const banEndMs = now + policy.banMs;
    for (const window of live) window.rejected = 0;
    return { state: toState(stored, specs, live, banEndMs, 0), decision: bannedDecision(specs, live, banEndMs, now) };
  }
  return {
    state: toState(stored, specs, live, 0, refusedSinceMs),
    decision: {
      allowed: false,
      banned: false,
      retryAfterSeconds: secondsUntil(acceptedAgainAtMs, now),
      ...describeWindows(specs, live, now),
    },
  };
}

/** What a shared step stores: the changed records, absent when a record stays as it was. */
export interface SharedConsumeOutcome {
  readonly quota?: StoredKeyState;
  readonly ban?: StoredKeyState;
  readonly decision: RateLimitDecision;
}

/**
 * `consumeRequest` over two records: the quota's (an account's windows, shared
 * by its keys) and the ban's (one key's). The request counts in the quota's
 * windows while the rejections and the ban are the key's alone, so one key
 * that keeps sending past the quota is banned without locking out its
 * siblings. The ban record keeps each window's rejections with that window's
 * end, so they lapse when the shared window ends. The Lua script stores the
 * same fields in the same way.
 */
export function consumeSharedRequest(
  quota: StoredKeyState | undefined,
  ban: StoredKeyState | undefined,
  specs: readonly WindowSpec[],
  policy: BanPolicy,
  nowMs: number,
): SharedConsumeOutcome {
  const merged = mergeRecords(quota, ban, specs);
  const { state, decision } = consumeRequest(merged, specs, policy, nowMs);
  if (state === merged) return { decision };
  // The records' other windows (a route's own bucket, the plan's windows) stay as they were.
  const counts: Partial<Record<WindowName, StoredWindow>> = { ...quota?.windows };
  const rejections: Partial<Record<WindowName, StoredWindow>> = { ...ban?.windows };
  for (const spec of specs) {
    const window = state.windows[spec.name] as StoredWindow;
    counts[spec.name] = { count: window.count, rejected: 0, resetAtMs: window.resetAtMs };
    rejections[spec.name] = { count: 0, rejected: window.rejected, resetAtMs: window.resetAtMs };
  }
  return {
    quota: { windows: counts, bannedUntilMs: 0 },
    ban: { windows: rejections, bannedUntilMs: state.bannedUntilMs, refusedSinceMs: state.refusedSinceMs },
    decision,
  };
}

/** One record as `consumeRequest` reads it: the quota's counts, and the key's rejections of those very windows. */
function mergeRecords(quota: StoredKeyState | undefined, ban: StoredKeyState | undefined, specs: readonly WindowSpec[]): StoredKeyState {
  const windows: Partial<Record<WindowName, StoredWindow>> = {};
  for (const { name } of specs) {
    const counted = quota?.windows[name];
    if (!counted) continue;
    const tallied = ban?.windows[name];
    const rejected = tallied && tallied.resetAtMs === counted.resetAtMs ? tallied.rejected : 0;
    windows[name] = { count: counted.count, rejected, resetAtMs: counted.resetAtMs };
  }
  return { windows, bannedUntilMs: ban?.bannedUntilMs ?? 0, refusedSinceMs: ban?.refusedSinceMs ?? 0 };
}

/**
 * What `consumeRequest` would answer for the state as it stands, counting
 * nothing: no window counts the request and no rejection is tallied, so no
 * ban starts. An accepted answer's `remaining` is what is left now, before
 * any request; a window not yet started reads as one starting at `nowMs`.
 */
export function peekRequest(stored: StoredKeyState | undefined, specs: readonly WindowSpec[], nowMs: number): RateLimitDecision {
  const now = Math.floor(nowMs);
  const live = liveWindows(stored, specs, now);
  const bannedUntilMs = stored?.bannedUntilMs ?? 0;
  if (bannedUntilMs > now) return bannedDecision(specs, live, bannedUntilMs, now);
  let acceptedAgainAtMs = 0;
  for (let i = 0; i < specs.length; i++) {
    if (isFull(live[i], specs[i])) acceptedAgainAtMs = Math.max(acceptedAgainAtMs, live[i].resetAtMs);
  }
  const allowed = acceptedAgainAtMs === 0;
  return { allowed, banned: false, retryAfterSeconds: allowed ? 0 : secondsUntil(acceptedAgainAtMs, now), ...describeWindows(specs, live, now) };
}

/** `peekRequest` over an account's windows and one key's ban, read as `consumeSharedRequest` reads them. */
export function peekSharedRequest(
  quota: StoredKeyState | undefined,
  ban: StoredKeyState | undefined,
  specs: readonly WindowSpec[],
  nowMs: number,
): RateLimitDecision {
  return peekRequest(mergeRecords(quota, ban, specs), specs, nowMs);
}

/**
 * The state once a request `consumeRequest` counted (its decision `counted`)
 * is taken back: one less in each window it was counted in and that has not
 * ended since (the same reset). The very object passed in when no window
 * changed. Rejections, the ban and the episode stay as they are.
 */
export function refundRequest(
  stored: StoredKeyState | undefined,
  specs: readonly WindowSpec[],
  counted: RateLimitDecision,
  nowMs: number,
): StoredKeyState | undefined {
  if (!stored) return stored;
  const windows: Partial<Record<WindowName, StoredWindow>> = { ...stored.windows };
  let changed = false;
  for (let i = 0; i < specs.length; i++) {
    const window = stored.windows[specs[i].name];
    if (!isCounted(specs[i]) || !window || window.count === 0 || nowMs >= window.resetAtMs || window.resetAtMs !== counted.windows[i]?.resetAtMs) continue;
    windows[specs[i].name] = { ...window, count: window.count - 1 };
    changed = true;
  }
  return changed ? { ...stored, windows } : stored;
}

/**
 * What a request refused after it was counted is told: its counted decision
 * with the request taken back, one more left in each window it was counted in.
 */
export function refundedDecision(counted: RateLimitDecision, specs: readonly WindowSpec[]): RateLimitDecision {
  const windows = counted.windows.map((window, i) => (isCounted(specs[i]) ? { ...window, remaining: Math.min(window.limit, window.remaining + 1) } : window));
  return { ...counted, binding: bindingOf(windows), windows };
}

/** Whether a window refuses the request: full, and one the request is counted in or judged against. */
function isFull(window: LiveWindow, spec: WindowSpec): boolean {
  return spec.use !== 'report' && window.count >= spec.limit;
}

function isCounted(spec: WindowSpec): boolean {
  return spec.use === undefined || spec.use === 'count';
}

/** When every window and the ban of `state` have ended, so it can be forgotten. */
export function forgetAtMs(state: StoredKeyState): number {
  let latest = state.bannedUntilMs;
  for (const name in state.windows) latest = Math.max(latest, state.windows[name as WindowName]?.resetAtMs ?? 0);
  return latest;
}

/** Whole seconds from `nowMs` to `untilMs`, rounded up, never below 1. */
export function secondsUntil(untilMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((untilMs - nowMs) / 1000));
}

/** A window as this request sees it: the stored one while it lasts, else a new one from now. A working copy. */
interface LiveWindow {
  count: number;
  rejected: number;
  resetAtMs: number;
}

function liveWindows(stored: StoredKeyState | undefined, specs: readonly WindowSpec[], now: number): LiveWindow[] {
  if (specs.length === 0) throw new Error('A rate limit needs at least one window');
  return specs.map((spec) => liveWindow(stored?.windows[spec.name], spec, now));
}

function liveWindow(stored: StoredWindow | undefined, spec: WindowSpec, now: number): LiveWindow {
  if (stored && now < stored.resetAtMs) return { count: stored.count, rejected: stored.rejected, resetAtMs: stored.resetAtMs };
  return { count: 0, rejected: 0, resetAtMs: now + spec.durationMs };
}

/** While banned every window reads as empty until the ban ends, so clients wait for the ban, not for a window. */
function bannedDecision(specs: readonly WindowSpec[], live: readonly LiveWindow[], banEndMs: number, now: number): RateLimitDecision {
  const { binding, windows } = describeWindows(specs, live, now);
  return {
    allowed: false,
    banned: true,
    retryAfterSeconds: secondsUntil(banEndMs, now),
    binding: { ...binding, remaining: 0, resetAtMs: banEndMs },
    windows: windows.map((window) => ({ ...window, remaining: 0, resetAtMs: banEndMs })),
    atMs: now,
  };
}

/** Every window's state, and the binding one: the fewest requests left; on a tie, the one that resets later. */
function describeWindows(
  specs: readonly WindowSpec[],
  live: readonly LiveWindow[],
  now: number,
): Pick<RateLimitDecision, 'binding' | 'windows' | 'atMs'> {
  const windows: WindowReport[] = [];
  for (let i = 0; i < specs.length; i++) {
    const { name, limit, durationMs } = specs[i];
    windows.push({ name, limit, durationMs, remaining: Math.max(0, limit - live[i].count), resetAtMs: live[i].resetAtMs });
  }
  return { binding: bindingOf(windows), windows, atMs: now };
}

/** The window that binds first: the fewest requests left; on a tie, the one that resets later. */
function bindingOf(windows: readonly WindowReport[]): WindowState {
  let best = 0;
  for (let i = 1; i < windows.length; i++) {
    const [window, bound] = [windows[i], windows[best]];
    if (window.remaining < bound.remaining || (window.remaining === bound.remaining && window.resetAtMs > bound.resetAtMs)) best = i;
  }
  const { name, limit, remaining, resetAtMs } = windows[best];
  return { name, limit, remaining, resetAtMs };
}

/** The new state: the request's windows as judged, and the key's other windows (a route's own bucket) as they were. */
function toState(
  stored: StoredKeyState | undefined,
  specs: readonly WindowSpec[],
  live: readonly LiveWindow[],
  bannedUntilMs: number,
  refusedSinceMs: number,
): StoredKeyState {
  const windows: Partial<Record<WindowName, StoredWindow>> = { ...stored?.windows };
  for (let i = 0; i < specs.length; i++) windows[specs[i].name] = live[i];
  return { windows, bannedUntilMs, refusedSinceMs };
}
