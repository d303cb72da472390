/** The middle value; the mean of the two middle ones for an even count. */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** `value / reference`, or undefined when the reference is not a positive finite number. */
export function ratio(value: number, reference: number): number | undefined {
  return Number.isFinite(value) && Number.isFinite(reference) && reference > 0 ? value / reference : undefined;
}

/** The per-round ratios, in round order; rounds without a usable reference are left out. */
export function roundRatios(values: readonly number[], references: readonly number[]): number[] {
  if (values.length !== references.length) throw new Error('ratio of series of different lengths');
  return values.map((value, i) => ratio(value, references[i])).filter((r): r is number => r !== undefined);
}

/** Median of the per-round ratios: each ratio compares two runs made close together in time. */
export function medianRatio(values: readonly number[], references: readonly number[]): number | undefined {
  const ratios = roundRatios(values, references);
  return ratios.length ? median(ratios) : undefined;
}
