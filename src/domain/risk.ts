// Portfolio margin (DESIGN.md §6), pure and exact. Each instrument has a risk array: its P&L per lot
// under a grid of underlying moves, ±{1/3, 2/3, 1}·R and 0, plus ±2R counted at 35%. A family's
// requirement is the worst scenario loss of all its positions and open orders together, so a long
// perpetual offsets a short future. Families of one asset class earn a correlation credit when their
// worst scenarios lie in opposite directions.
//
// Integers only: an array entry is a numerator over SCENARIO_DENOMINATOR (moves in thirds of R,
// weights in twentieths, R in millionths), so summing and comparing is exact and the requirement is
// rounded up once, in the exchange's favour.

export interface Scenario {
  /** Underlying move in thirds of the range R (−6 … 6). */
  thirds: number
  /** Weight in twentieths: 20 = counted in full, 7 = 35% (the extreme moves). */
  weight20: number
}

export const SCENARIOS: readonly Scenario[] = [
  { thirds: -3, weight20: 20 },
  { thirds: -2, weight20: 20 },
  { thirds: -1, weight20: 20 },
  { thirds: 0, weight20: 20 },
  { thirds: 1, weight20: 20 },
  { thirds: 2, weight20: 20 },
  { thirds: 3, weight20: 20 },
  { thirds: -6, weight20: 7 },
  { thirds: 6, weight20: 7 },
]

export const SCENARIO_DENOMINATOR = 3n * 20n * 1_000_000n

/** Per-lot P&L numerators of a linear instrument worth `valuePerLot` micro-USDC, for a range R in millionths. */
export function linearRiskArray(valuePerLot: bigint, rangeMillionths: bigint): bigint[] {
  const unit = valuePerLot * rangeMillionths
  return SCENARIOS.map((s) => unit * BigInt(s.thirds * s.weight20))
}

/** One instrument of a family as the margin sees it. */
export interface Exposure {
  /** Per-lot P&L numerators, one per scenario (linearRiskArray). */
  array: readonly bigint[]
  /** Signed position in lots. */
  lots: number
  /** Lots of open buy and sell orders that could add to the position. */
  buyLots: number
  sellLots: number
  /** What filling all open buys (sells) would lose at once against the mark, micro-USDC (≥ 0). */
  buyCost: bigint
  sellCost: bigint
}

export interface FamilyRisk {
  /** Worst scenario loss, micro-USDC, rounded up; 0 when no scenario loses. */
  requirement: bigint
  /** Direction of the worst scenario's move: −1 down, 1 up, 0 none. */
  direction: -1 | 0 | 1
}

const NO_RISK: FamilyRisk = Object.freeze({ requirement: 0n, direction: 0 })

/** The widest moves are ±R at full weight (thirds × weight20 = ±60; the ±2R moves at 35% weigh 42).
 * The first scenario is the move down, so ties resolve to it in both evaluations below. */
const EXTREME_UP = SCENARIOS.findIndex((s) => s.thirds === -SCENARIOS[0]!.thirds && s.weight20 === SCENARIOS[0]!.weight20)

/** The per-lot P&L numerator of a linear risk array's full-weight up move (+R), the one figure of the
 * array that FamilyRiskSum needs. */
export const upMove = (array: readonly bigint[]): bigint => array[EXTREME_UP]!

/**
 * Worst scenario loss of a family of linear instruments, summed as they are added (no list is built:
 * the margin check runs on every order). Open orders count on their worse side in every scenario: the
 * position as if all buys filled, or as if all sells filled, whichever loses more there.
 *
 * Computed from the two extreme moves alone. Every instrument's P&L is min(a·c − b, a'·c − b') in the
 * scenario's c = thirds × weight20, a concave function of c; so is the family's sum, whose minimum over
 * the scenarios' c ∈ [−60, 60] therefore lies at an end. Ties resolve to the down move, as in
 * scenarioRisk, whose first scenario it is (and a concave function tying at an interior scenario is
 * flat, so ties there too).
 */
export class FamilyRiskSum {
  /** The family's P&L numerators at the full-weight up and down moves. */
  private up = 0n
  private down = 0n

  /** Adds one instrument: `move` its upMove(), `lots` the signed position, open buys and sells in lots,
   * and what filling them would lose at once against the mark (micro-USDC, ≥ 0). */
  add(move: bigint, lots: number, buyLots: number, sellLots: number, buyCost: bigint, sellCost: bigint): void {
    if (buyLots === 0 && sellLots === 0 && buyCost === 0n && sellCost === 0n) {
      if (lots === 0) return
      const pnl = BigInt(lots) * move
      this.up += pnl
      this.down -= pnl
      return
    }
    const withBuys = BigInt(lots + buyLots) * move
    const withSells = BigInt(lots - sellLots) * move
    const buyLoss = buyCost === 0n ? 0n : buyCost * SCENARIO_DENOMINATOR
    const sellLoss = sellCost === 0n ? 0n : sellCost * SCENARIO_DENOMINATOR
    const upBuys = withBuys - buyLoss
    const upSells = withSells - sellLoss
    this.up += upBuys < upSells ? upBuys : upSells
    const downBuys = -withBuys - buyLoss
    const downSells = -withSells - sellLoss
    this.down += downBuys < downSells ? downBuys : downSells
  }

  result(): FamilyRisk {
    const { up, down } = this
    if (down >= 0n && up >= 0n) return NO_RISK
    return down <= up ? { requirement: roundUp(-down), direction: -1 } : { requirement: roundUp(-up), direction: 1 }
  }
}

/** FamilyRiskSum over a list of linear exposures. */
export function familyRisk(exposures: readonly Exposure[]): FamilyRisk {
  const sum = new FamilyRiskSum()
  for (const e of exposures) sum.add(upMove(e.array), e.lots, e.buyLots, e.sellLots, e.buyCost, e.sellCost)
  return sum.result()
}

/** The same worst loss evaluated in every scenario, for any risk arrays: the reference familyRisk must
 * equal on linear ones, and the evaluation non-linear arrays (options) will need. */
export function scenarioRisk(exposures: readonly Exposure[]): FamilyRisk {
  const n = SCENARIOS.length
  const pnl: bigint[] = new Array<bigint>(n).fill(0n)
  for (const e of exposures) {
    if (e.buyLots === 0 && e.sellLots === 0 && e.buyCost === 0n && e.sellCost === 0n) {
      if (e.lots === 0) continue
      const lots = BigInt(e.lots)
      for (let k = 0; k < n; k++) pnl[k]! += lots * e.array[k]!
      continue
    }
    const withBuys = BigInt(e.lots + e.buyLots)
    const withSells = BigInt(e.lots - e.sellLots)
    const buyCost = e.buyCost * SCENARIO_DENOMINATOR
    const sellCost = e.sellCost * SCENARIO_DENOMINATOR
    for (let k = 0; k < n; k++) {
      const a = e.array[k]!
      const asBuys = withBuys * a - buyCost
      const asSells = withSells * a - sellCost
      pnl[k]! += asBuys < asSells ? asBuys : asSells
    }
  }
  let worst = 0n
  let direction: -1 | 0 | 1 = 0
  for (let k = 0; k < n; k++) {
    if (-pnl[k]! > worst) {
      worst = -pnl[k]!
      const thirds = SCENARIOS[k]!.thirds
      direction = thirds < 0 ? -1 : thirds > 0 ? 1 : 0
    }
  }
  return worst === 0n ? NO_RISK : { requirement: roundUp(worst), direction }
}

const roundUp = (numerator: bigint): bigint => (numerator + SCENARIO_DENOMINATOR - 1n) / SCENARIO_DENOMINATOR

/**
 * The requirement of several families. Within an asset class, families whose worst moves are opposite
 * offset each other: the class earns creditPct% of the smaller of the two sides' requirements
 * (rounded down, in the exchange's favour).
 */
export function portfolioRequirement(families: ReadonlyArray<FamilyRisk & { assetClass: string }>, creditPct: Readonly<Record<string, number>>): bigint {
  let total = 0n
  const sides = new Map<string, { up: bigint; down: bigint }>()
  for (const f of families) {
    total += f.requirement
    if (f.direction === 0) continue
    let s = sides.get(f.assetClass)
    if (!s) sides.set(f.assetClass, (s = { up: 0n, down: 0n }))
    if (f.direction > 0) s.up += f.requirement
    else s.down += f.requirement
  }
  for (const [assetClass, s] of sides) {
    const smaller = s.up < s.down ? s.up : s.down
    total -= (smaller * BigInt(Math.round((creditPct[assetClass] ?? 0) * 100))) / 10_000n
  }
  return total
}
