// How benchmarks print: one aligned line per figure, so `npm run bench` reads as a table.

export function printLine(name: string, figures: string): void {
  console.log(`${name.padEnd(58)} ${figures}`)
}

/** The q-quantile of an ascending-sorted sample. */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) return NaN
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!
}

/** The median of a few pass figures, and the figures in ascending order (for printing beside it). */
export function median(values: readonly number[]): { median: number; sorted: number[] } {
  const sorted = [...values].sort((a, b) => a - b)
  return { median: percentile(sorted, 0.5), sorted }
}

/** `n` with thousands separators and exactly `digits` decimals. */
export const fmt = (n: number, digits = 0): string =>
  n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })

/** A full collection before a timed pass (npm run bench gives node --expose-gc), so that no pass pays
 * for the garbage of the one before. */
export function collectGarbage(): void {
  ;(globalThis as { gc?: () => void }).gc?.()
}
