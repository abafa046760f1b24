// Option risk arrays (DESIGN.md §6): per lot, what a long position gains or loses under each scenario of
// the grid the linear margin uses (underlying 0, ±1/3, ±2/3, ±1 R at full weight and ±2R at 35%), each
// with the volatility shifted down and up by 30% relative (sticky strike), against its value now.
// Floating point inside Black-76, integers out: every entry is rounded to the micro-USDC, so the engine
// sums positions exactly and the same inputs give the same array on every replay.
import { SCENARIOS } from '../risk.js'
import { black76Price, type Black76Input } from './black76.js'

/** Relative volatility shifts of the grid: σ·(1 − 0.3) and σ·(1 + 0.3). */
export const VOL_SHIFTS = [-0.3, 0.3] as const

/** 18 scenarios: every underlying move of SCENARIOS under each volatility shift, in that order. */
export const OPTION_SCENARIOS = VOL_SHIFTS.flatMap((volShift) => SCENARIOS.map((s) => ({ ...s, volShift })))

const toMicro = (usdc: number): bigint => BigInt(Math.round(usdc * 1_000_000))

/** Value of one lot (`lotSize` units of the underlying) in micro-USDC. */
export function optionLotValue(input: Black76Input, lotSize: number): bigint {
  return toMicro(lotSize * black76Price(input))
}

/**
 * Per-lot P&L of a long in micro-USDC under each OPTION_SCENARIO for a range R (0.1 = 10%), weighted
 * (the ±2R moves count at 35%). A short's is the negation.
 */
export function optionRiskArray(input: Black76Input, lotSize: number, range: number): bigint[] {
  const now = black76Price(input)
  return OPTION_SCENARIOS.map((s) => {
    const moved = black76Price({ ...input, forward: input.forward * (1 + (s.thirds / 3) * range), vol: input.vol * (1 + s.volShift) })
    return toMicro((s.weight20 * lotSize * (moved - now)) / 20)
  })
}
