// A typed GraphQL client of the exchange: every operation is a TypedDocumentNode generated from
// schema.graphql (generated/graphql.ts), so results and variables are checked by TypeScript. It
// subscribes to a book over graphql-ws, places a post-only bid 1% under the mark over HTTP, sees its level
// arrive in the book, cancels it and sees the level go. The API key needs scope `trade` and an account
// with perps collateral (README: faucet and transfer).
//   API_URL=http://localhost:3000 KEY=svc_sk_… npx tsx examples/typed-client/client.ts
import { randomUUID } from 'node:crypto'
import type { TypedDocumentNode } from '@graphql-typed-document-node/core'
import { Decimal } from 'decimal.js'
import { print } from 'graphql'
import { createClient } from 'graphql-ws'
import WebSocket from 'ws'
import { BookDocument, CancelOrderDocument, MarketDocument, PlaceOrderDocument, type BookSubscription } from './generated/graphql.js'

const api = process.env.API_URL ?? 'http://localhost:3000'
const key = process.env.KEY
const marketId = process.env.MARKET_ID ?? 'BTC-PERP'
if (!key) throw new Error('Set KEY to an API key (svc_sk_…) with scope trade')
const authorization = `Bearer ${key}`

interface GraphQLResponse<R> {
  data?: R | null
  errors?: ReadonlyArray<{ message: string; extensions?: { code?: string } }>
}

function dataOf<R>(res: GraphQLResponse<R>): R {
  if (res.errors?.length || !res.data) {
    const [e] = res.errors ?? []
    throw new Error(e ? `${e.extensions?.code ?? 'ERROR'}: ${e.message}` : 'no data')
  }
  return res.data
}

/** A query or mutation over HTTP: typed by its document. */
async function request<R, V>(doc: TypedDocumentNode<R, V>, variables: V): Promise<R> {
  const res = await fetch(`${api}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization },
    body: JSON.stringify({ query: print(doc), variables }),
  })
  return dataOf((await res.json()) as GraphQLResponse<R>)
}

const ws = createClient({ url: `${api.replace(/^http/, 'ws')}/graphql`, webSocketImpl: WebSocket, connectionParams: { authorization } })

/** A subscription over graphql-ws: each event typed by its document. */
async function* subscribe<R, V extends Record<string, unknown>>(doc: TypedDocumentNode<R, V>, variables: V): AsyncGenerator<R> {
  for await (const res of ws.iterate<R>({ query: print(doc), variables })) yield dataOf(res)
}

type Book = BookSubscription['orderbook']['payload']

/** The size resting at `price` on the bid side after applying `event` to `size`. */
function bidSize(size: string, event: Book, price: string): string {
  const levels = event.kind === 'SNAPSHOT' ? (event.bids ?? []).map((l) => ({ side: 'BID', ...l })) : (event.changes ?? [])
  const level = levels.find((l) => l.side === 'BID' && new Decimal(l.price).eq(price))
  return level ? level.size : event.kind === 'SNAPSHOT' ? '0' : size
}

try {
  const { market } = await request(MarketDocument, { id: marketId })
  if (!market?.mark) throw new Error(`${marketId} has no mark yet`)
  // 1% under the mark, on the tick, inside the price band, so it rests and a post-only order cannot trade.
  let price = new Decimal(market.mark.price).mul(0.99).toNearest(market.tickSize, Decimal.ROUND_DOWN)
  if (market.priceBandLow && price.lt(market.priceBandLow)) price = new Decimal(market.priceBandLow).toNearest(market.tickSize, Decimal.ROUND_UP)
  const at = price.toFixed()

  const book = subscribe(BookDocument, { marketId })
  const next = async (): Promise<Book> => {
    const { value, done } = await book.next()
    if (done) throw new Error('the book subscription ended')
    return value.orderbook.payload
  }
  const snapshot = await next()
  let size = bidSize('0', snapshot, at)
  console.log(`book ${marketId} snapshot #${snapshot.sequence}: ${snapshot.bids?.length ?? 0} bids, ${snapshot.asks?.length ?? 0} asks; bid ${at} holds ${size}`)

  const placed = (await request(PlaceOrderDocument, {
    input: { marketId, side: 'BUY', type: 'LIMIT', price: at, quantity: market.minQuantity, postOnly: true, clientOrderId: `typed-${randomUUID()}` },
  })).placeOrder!
  console.log(`placed ${placed.id} ${placed.status} ${placed.side} ${placed.quantity} @ ${placed.price}`)
  const before = size
  while (new Decimal(size).eq(before)) size = bidSize(size, await next(), at)
  console.log(`book: bid ${at} holds ${size}`)

  const cancelled = (await request(CancelOrderDocument, { id: placed.id })).cancelOrder!
  console.log(`cancelled ${cancelled.id} ${cancelled.status} (${cancelled.cancelReason})`)
  while (!new Decimal(size).eq(before)) size = bidSize(size, await next(), at)
  console.log(`book: bid ${at} holds ${size}`)
  await book.return(undefined)
} finally {
  await ws.dispose()
}
