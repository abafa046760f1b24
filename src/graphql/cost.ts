// The GraphQL cost model (DESIGN §10): what a field is charged by @pothos/plugin-complexity, so that the
// cost limit (GRAPHQL_MAX_COMPLEXITY, 5,000 by default, checked by operationLimits.ts) bounds how long one
// request can hold the node.
//
// One unit is about 10 µs of the node's time on a 2-core machine, serialisation included. Measured with
// a scratch script over the real schema (execute() and JSON.stringify, the fastest of 100 runs, ~132
// listed markets): a scalar or enum field that reads its parent 0.5–1.1 µs, so a tenth of a unit; an
// object (an edge, a node, a mark) ~1.5 µs, kept at one unit because objects are what lists and nesting
// multiply and the plugin charges nothing for a list item's own object; a price band 4 µs. A resolver
// that does real work is charged its measured time on every occurrence: aliases repeat the charge even
// though per-request memoisation makes repeats cheap. optionsBoard(BTC, ~120 options) 3–7.5 ms,
// instruments ≈ the BTC board + 1 ms, marketStats 1.3–1.8 ms, candles 0.7 ms, orderbook 0.2 ms; the
// account reads, a database query each: `me` 0.5–0.7 ms, a page of orders, trades or liquidations
// ~1 ms plus ~15 µs a row, positions ~0.8 ms, the balance ~1.5 ms, the key list ~0.5 ms. A list is
// charged per item it can really return (the page asked for, within what the catalog lists), not the
// plugin's flat 10.
import type { FieldComplexityValue } from '@pothos/plugin-complexity'
import type { GraphQLContext } from './context.js'
import { getNamedType, getNullableType, isLeafType, isListType, type GraphQLOutputType } from 'graphql'
import { OPTION_EXPIRY_COUNT } from '../domain/calendar.js'
import { CATALOG, familyCatalog } from '../config/catalog.js'
import { DEFAULT_PAGE, MAX_PAGE } from '../store/accountReads.js'
import { candleWindow, RESOLUTIONS, MAX_CANDLE_SPAN_S, resolutionMinutes, type Resolution } from '../services/marketStats.js'

/** The items a list of objects is charged for when it names no multiplier of its own (edges included:
 *  connectionCost scales them to the page). */
export const LIST_MULTIPLIER = 10

/** A scalar or enum field that reads its parent. */
export const LEAF_COST = 0.1

/** What a field costs unless it names a charge: a leaf a tenth of a unit, an object one, a list of
 *  objects its selection LIST_MULTIPLIER times (builder.ts passes this as the plugin's fieldComplexity). */
export function defaultFieldCost(type: GraphQLOutputType): FieldComplexityValue {
  if (isLeafType(getNamedType(type))) return LEAF_COST
  return isListType(getNullableType(type)) ? { field: 1, multiplier: LIST_MULTIPLIER } : 1
}

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
  /** The order price band: decimal arithmetic on the mark. */
  priceBand: 0.5,
  /** The caller's user row. */
  me: 50,
  /** One page of the caller's orders, trades or liquidations. */
  accountPage: 100,
  /** The caller's positions, valued at the marks. */
  positions: 100,
  /** The caller's option positions, each valued and its sensitivities priced with Black-76. */
  optionPositions: 150,
  /** The caller's options bucket: one row. */
  optionsBalance: 50,
  /** The caller's buckets and pending withdrawals. */
  balance: 150,
  /** The caller's API keys. */
  apiKeys: 50,
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

/** A connection's page sizes, as its resolver applies them. */
export interface PageSize {
  readonly defaultSize: number
  readonly maxSize: number
}

/** Pages of the connections over in-memory lists (markets, statistics, instruments; products; the
 *  caller's positions and keys), and of the account reads (orders, trades, liquidations). */
export const CATALOG_PAGE: PageSize = { defaultSize: 500, maxSize: 1_000 }
export const PRODUCT_PAGE: PageSize = { defaultSize: 100, maxSize: 1_000 }
export const OWN_LIST_PAGE: PageSize = { defaultSize: 200, maxSize: 1_000 }
export const ACCOUNT_PAGE: PageSize = { defaultSize: DEFAULT_PAGE, maxSize: MAX_PAGE }

/**
 * The charge of a Relay connection: `field` for the resolver, and its selection (edges, each charged
 * ×LIST_MULTIPLIER by the plugin) repeated for as many items as the page can hold: the page size asked
 * for, else the default page, at most the largest page and `expected` (what the list really holds).
 */
export function connectionCost(field: number, page: PageSize, expected = Number.POSITIVE_INFINITY) {
  return (args: PageArgs) => {
    const asked = args.first ?? args.last ?? page.defaultSize
    const items = Math.max(1, Math.min(Number.isFinite(asked) ? asked : page.defaultSize, page.maxSize, expected))
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
export function candlesCost(args: { resolution?: string | null; from?: number | null; to?: number | null }, ctx: GraphQLContext) {
  const resolution = (RESOLUTIONS as readonly string[]).includes(args.resolution ?? '15') ? (args.resolution ?? '15') as Resolution : '15'
  const bucketS = resolutionMinutes(resolution) * 60
  const { from, to } = candleWindow(resolution, args.from, args.to, Math.floor(ctx.services.clock() / 1000))
  const span = Math.min(Math.max(0, to - from), MAX_CANDLE_SPAN_S)
  return { field: COST.candles, multiplier: Math.floor(span / bucketS) + 1 }
}
