const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** Longest duration accepted: about a hundred years, well inside what a Date can hold. */
const MAX_DURATION_MS = 36_500 * UNIT_MS.d;

/** `30s`, `15m`, `12h` or `90d` in milliseconds; null for anything else. */
export function parseDuration(text: string): number | null {
  const match = /^(\d{1,6})([smhd])$/.exec(text);
  if (!match) return null;
  const ms = Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  return ms <= MAX_DURATION_MS ? ms : null;
}
