// GraphQL results in the spec's REST shapes: lower-case enum strings, [price, size] pairs, maps where
// the spec documents maps. Fragments here select exactly what the shapes read.

export const lower = (v: string | null | undefined) => (v == null ? v : v.toLowerCase())

export const MARKET_FIELDS = /* GraphQL */ `
  fragment RestMarket on Market {
    marketId base quote type tradingStatus tickSize stepSize minQuantity priceBandLow priceBandHigh
    takerFeeBps makerFeeBps fundingIntervalMs fundingMaxRateBps expiry strike optionType
  }`

export function restMarket(m: Record<string, any>) {
  const out: Record<string, unknown> = {
    marketId: m.marketId,
    base: m.base,
    quote: m.quote,
    type: lower(m.type),
    tradingStatus: lower(m.tradingStatus),
    tickSize: m.tickSize,
    stepSize: m.stepSize,
    minQuantity: m.minQuantity,
    priceBandLow: m.priceBandLow,
    priceBandHigh: m.priceBandHigh,
    takerFeeBps: m.takerFeeBps,
    makerFeeBps: m.makerFeeBps,
    fundingIntervalMs: m.fundingIntervalMs,
    fundingMaxRateBps: m.fundingMaxRateBps,
  }
  if (m.expiry) out['expiry'] = m.expiry
  if (m.strike) {
    out['strike'] = m.strike
    out['optionType'] = lower(m.optionType)
  }
  return out
}

export const BOOK_FIELDS = /* GraphQL */ `
  fragment RestBook on Orderbook { marketId sequence bids { price size } asks { price size } timestamp }`

export function restBook(b: Record<string, any>) {
  const pairs = (levels: Array<{ price: string; size: string }>) => levels.map((l) => [l.price, l.size])
  return { marketId: b.marketId, sequence: b.sequence, bids: pairs(b.bids), asks: pairs(b.asks), timestamp: b.timestamp }
}

export const nodes = (connection: { edges: Array<{ node: unknown }> }) => connection.edges.map((e) => e.node)

/** The X-Next-Cursor header of a paged list: the cursor of the next page, when there is one. */
export const nextCursor = (connection: { pageInfo: { hasNextPage: boolean; endCursor: string | null } }): Record<string, string> =>
  connection.pageInfo.hasNextPage && connection.pageInfo.endCursor ? { 'X-Next-Cursor': connection.pageInfo.endCursor } : {}

/** An object without its null and undefined fields: what the request left out, GraphQL gets as absent. */
export function present<T extends Record<string, unknown>>(o: T): { [K in keyof T]: Exclude<T[K], null> } {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(o)) if (v !== null && v !== undefined) out[k] = v
  return out as { [K in keyof T]: Exclude<T[K], null> }
}
