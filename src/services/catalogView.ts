// The catalog endpoints: instruments (every tradable market with its current base price) and products
// (markets grouped by family and type, with their fee schedule and margin group).
import { familyCatalog } from '../config/catalog.js'
import type { AssetClass, MarketType } from '../domain/market.js'
import type { ListedMarket } from '../store/marketRows.js'
import type { MarketData } from './marketData.js'
import { optionsBoard } from './optionsBoard.js'

export interface Instrument {
  id: string
  type: MarketType
  underlying: string
  quote: string
  basePrice: string | null
  computedAtMs: number | null
}

export interface Product {
  productId: string
  underlying: string
  type: MarketType
  assetClass: AssetClass
  /** Markets of one margin group are netted together (a long perpetual offsets a short future). */
  marginGroup: string
  takerFeeBps: string
  makerFeeBps: string
  markets: ListedMarket[]
}

export async function instruments(md: MarketData): Promise<Instrument[]> {
  const [listed, marks] = await Promise.all([md.listed(), md.marks()])
  const live = listed.filter((m) => m.status !== 'settled')
  const optionMarks = new Map<string, string | null>()
  for (const family of new Set(live.filter((m) => m.spec.type === 'option').map((m) => m.spec.family))) {
    const board = await optionsBoard(md, family)
    for (const row of [...board.calls, ...board.puts]) optionMarks.set(row.marketId, row.markPrice)
  }
  const now = md.clock()
  return live.map((m) => {
    const s = m.spec
    const mark = marks.get(s.id)
    const basePrice = s.type === 'option' ? (optionMarks.get(s.id) ?? null) : (mark?.price ?? null)
    return {
      id: s.id,
      type: s.type,
      underlying: familyCatalog(s.family)?.family ?? s.base,
      quote: s.quote,
      basePrice,
      computedAtMs: basePrice === null ? null : s.type === 'option' ? now : mark!.engineTs,
    }
  })
}

export async function instrument(md: MarketData, id: string): Promise<Instrument | null> {
  return (await instruments(md)).find((i) => i.id === id) ?? null
}

export async function products(md: MarketData): Promise<Product[]> {
  const groups = new Map<string, Product>()
  for (const m of await md.listed()) {
    if (m.status === 'settled') continue
    const s = m.spec
    const productId = `${s.family}-${s.type}`
    let p = groups.get(productId)
    if (!p) {
      p = {
        productId,
        underlying: s.family,
        type: s.type,
        assetClass: s.assetClass,
        marginGroup: s.family,
        takerFeeBps: s.takerFeeBps,
        makerFeeBps: s.makerFeeBps,
        markets: [],
      }
      groups.set(productId, p)
    }
    p.markets.push(m)
  }
  return [...groups.values()]
}
