/**
 * off: no auth, no limits; auth: bearer keys only; memory: auth and limits in
 * memory; redis: auth and limits in Redis.
 */
export const VARIANTS = ['off', 'auth', 'memory', 'redis'] as const;
export type Variant = (typeof VARIANTS)[number];
