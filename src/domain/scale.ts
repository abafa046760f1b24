// Integer counts of a decimal unit (ticks of a tick size, lots of a step size) rendered as canonical
// decimal strings without going through a decimal library: the engine formats prices and sizes on its
// hot path, and string arithmetic on a safe integer is exact and cheap.

export interface Scale {
  /** The unit as a canonical decimal string, e.g. "0.1". */
  readonly unit: string
  /** Canonical decimal string of n units. */
  format(n: number): string
}

const UNIT = /^(0|[1-9]\d*)(?:\.(\d+))?$/

export function scaleOf(unit: string): Scale {
  const m = UNIT.exec(unit)
  if (!m) throw new Error(`not a decimal unit: ${unit}`)
  const frac = m[2] ?? ''
  const decimals = frac.length
  const mantissa = Number(`${m[1]}${frac}`)
  if (!Number.isSafeInteger(mantissa) || mantissa <= 0) throw new Error(`not a positive unit: ${unit}`)
  return {
    unit,
    format(n: number): string {
      const v = n * mantissa
      const neg = v < 0
      let s = String(neg ? -v : v)
      if (decimals > 0) {
        if (s.length <= decimals) s = '0'.repeat(decimals - s.length + 1) + s
        const cut = s.length - decimals
        let end = s.length
        while (end > cut && s.charCodeAt(end - 1) === 48) end--
        s = end > cut ? `${s.slice(0, cut)}.${s.slice(cut, end)}` : s.slice(0, cut)
      }
      return neg && s !== '0' ? `-${s}` : s
    },
  }
}
