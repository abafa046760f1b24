// The GraphQL cost model (DESIGN §10): what a field is charged by @pothos/plugin-complexity, so that the
// cost limit (GRAPHQL_MAX_COMPLEXITY, 5,000 by default) bounds how long one request can hold the node.
//
// One unit is about one resolved field: some 5–10 µs on a 2-core machine, serialisation included. Scalar
// and object fields keep the plugin's default of 1. A resolver that does real work (a database query,
// Black-76 over a board) is charged its measured time in those units, on every occurrence: aliases
// repeat the charge even though per-request memoisation makes repeats cheap. A list is charged per item
// it can really return (its page size, or what the catalog lists), not the plugin's flat 10. Measured
// with a scratch script, one call each: optionsBoard(BTC, ~120 options) 7.5 ms, instruments ≈ the BTC
// board + 1 ms, marketStats 1.8 ms, candles 0.7 ms, markets (~135 nodes) 3.2 ms, orderbook 0.2 ms.
import { OPTION_EXPIRY_COUNT } from '../domain/calendar.js'
import { CATALOG, familyCatalog } from '../config/catalog.js'
import { candleWindow, RESOLUTIONS, MAX_CANDLE_SPAN_S, resolutionMinutes, type Resolution } from '../services/marketStats.js'

/** What the plugin multiplies a list field's items by when it is given no multiplier of its own
 * (builder.ts passes it as defaultListMultiplier). */
export const LIST_MULTIPLIER = 10

/** Per-call charges of the resolvers that do real work. */
export const COST = {
  /** A board with options: a database aggregate over every option plus Black-76 per option. */
  optionsBoard: 800,
  /** A board of an underlying without options (or an unknown one): two cached reads. */
  emptyOptionsBoard: 20,
  /** Lists every live market and prices the options of each board (the BTC board and then some). */
  instruments: 900,
  /** One aggregate over a day of candles and the positions of the markets asked for. */
  marketStats: 200,
  /** One aggregate over the candles of a span. */
  candles: 80,
  /** A Redis read of a full-depth snapshot. */
  orderbook: 20,
} as const

/** Linear markets (spot, perpetual, listed futures) the catalog keeps live. */
export const LINEAR_MARKETS = CATALOG.reduce((n, f) => n + 2 + f.futuresListed, 0)
/** Options live at once per family with options: a generous bound on the strike grid (it follows the
 *  spot) times the listed expiries, calls and puts. About 120 for BTC today. */
export const OPTIONS_PER_FAMILY = 25 * OPTION_EXPIRY_COUNT * 2
export const OPTION_FAMILIES = CATALOG.filter((f) => f.options).length
export const LIVE_MARKETS = LINEAR_MARKETS + OPTIONS_PER_FAMILY * OPTION_FAMILIES
/** Products (family × market type) the catalog defines. */
export const PRODUCTS = CATALOG.reduce((n, f) => n + 3 + (f.options ? 1 : 0), 0)
/** Levels per side charged for a full-depth book: the maker quotes 5 a side; traders add some. */
export const BOOK_LEVELS = 50

interface PageArgs {
  first?: number | null
  last?: number | null
}

/**
 * The charge of a Relay connection over an in-memory list: `field` for the resolver, and its selection
 * (edges, each charged ×LIST_MULTIPLIER by the plugin) repeated for as many items as the page can hold:
 * the page size asked for, else the default page, at most `expected` (what the list really holds).
 */
export function connectionCost(field: number, defaultSize: number, expected: number) {
  return (args: PageArgs) => {
    const asked = args.first ?? args.last ?? defaultSize
    const items = Math.max(1, Math.min(Number.isFinite(asked) ? asked : defaultSize, defaultSize, expected))
    return { field, multiplier: Math.ceil(items / LIST_MULTIPLIER) }
  }
}

/** Markets a `markets` query can return, by its filters (settled ones have no bound but the page). */
export function expectedMarkets(args: { type?: string | null; family?: string | null; linear?: boolean | null; includeSettled?: boolean | null }): number {
  if (args.includeSettled) return Number.POSITIVE_INFINITY
  const families = args.family ? CATALOG.filter((f) => f.family === args.family) : CATALOG
  let n = 0
  for (const f of families) {
    const linear = { spot: 1, perpetual: 1, future: f.futuresListed }
    const options = f.options ? OPTIONS_PER_FAMILY : 0
    if (args.type) n += args.type === 'option' ? options : linear[args.type as keyof typeof linear] ?? 0
    else if (args.linear === true) n += 2 + f.futuresListed
    else if (args.linear === false) n += options
    else n += 2 + f.futuresListed + options
  }
  return n
}

/** The board of an underlying with options costs the Black-76 pass; any other, next to nothing. */
export function optionsBoardCost(args: { underlying?: string | null }): number {
  return familyCatalog(args.underlying ?? 'BTC')?.options ? COST.optionsBoard : COST.emptyOptionsBoard
}

/** Rows of one side (calls or puts) of a board. */
export const BOARD_ROWS_PER_SIDE = OPTIONS_PER_FAMILY / 2

/**
 * Candles: the query, and one item per bucket the span can hold (only buckets with trades come back,
 * so this is the bound), over the window the resolver will read.
 */
export function candlesCost(args: { resolution?: string | null; from?: number | null; to?: number | null }) {
  const resolution = (RESOLUTIONS as readonly string[]).includes(args.resolution ?? '15') ? (args.resolution ?? '15') as Resolution : '15'
  const bucketS = resolutionMinutes(resolution) * 60
  const { from, to } = candleWindow(resolution, args.from, args.to, Math.floor(Date.now() / 1000))
  const span = Math.min(Math.max(0, to - from), MAX_CANDLE_SPAN_S)
  return { field: COST.candles, multiplier: Math.floor(span / bucketS) + 1 }
}
