/** How hard the client tries before it gives up on one logical call. */
export interface RetryOptions {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Time from the first attempt after which no further wait starts. */
  maxElapsedMs: number;
  /** The first backoff ceiling; it doubles with each attempt. */
  baseDelayMs: number;
  /** The largest backoff ceiling. */
  maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryOptions = { maxAttempts: 5, maxElapsedMs: 30_000, baseDelayMs: 200, maxDelayMs: 10_000 };

/** The time and chance a retry loop uses; tests may replace them. */
export interface RetryEnvironment {
  now(): number;
  sleep(ms: number): Promise<void>;
  random(): number;
}

export const SYSTEM_ENVIRONMENT: RetryEnvironment = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  random: () => Math.random(),
};

/** Full jitter (AWS Architecture Blog, "Exponential Backoff And Jitter"): uniform in [0, min(cap, base * 2^retry)). */
export function fullJitterDelay(retry: number, options: RetryOptions, random: () => number): number {
  return Math.floor(random() * Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** retry));
}
