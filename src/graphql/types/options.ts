// The options board: spot, forwards per expiry, and a row per listed strike.
import { optionsBoard, type BoardRow, type OptionsBoard } from '../../services/optionsBoard.js'
import { builder } from '../builder.js'
import { memoize } from '../context.js'
import { BOARD_ROWS_PER_SIDE, optionsBoardCost } from '../cost.js'
import { FAMILY_LIST, OptionTypeEnum } from './markets.js'

const ForwardSourceEnum = builder.enumType('ForwardSource', {
  description: 'Where an expiry\'s forward price comes from.',
  values: {
    FUTURE: { value: 'future', description: 'The mark of the future expiring with it (options expire the Friday before the quarterly future).' },
    SYNTHETIC: { value: 'synthetic', description: 'No matching future (weekly expiries): spot · e^(rT).' },
  } as const satisfies Record<string, { value: OptionsBoard['expiryForwards'][number]['source']; description: string }>,
})

const ExpiryForwardRef = builder.objectRef<OptionsBoard['expiryForwards'][number]>('ExpiryForward').implement({
  description: 'The forward price options of one expiry are priced against (REST\'s board writes these as a map from expiry to forward).',
  fields: (t) => ({
    expiry: t.exposeString('expiry', { description: 'The expiry date, YYYY-MM-DD (08:00 UTC that day).' }),
    forward: t.field({ type: 'Decimal', description: 'The forward price, USDC.', resolve: (f) => f.forward }),
    source: t.field({ type: ForwardSourceEnum, description: 'The matching future\'s mark, or synthetic from spot.', resolve: (f) => f.source }),
  }),
})

const BoardRowRef = builder.objectRef<BoardRow>('OptionsBoardRow').implement({
  description: 'One option. Prices are in units of the underlying; a null bid or ask means no order on that side, a null lastPrice no trade yet.',
  fields: (t) => ({
    marketId: t.exposeString('marketId', { description: 'The option market id, e.g. `BTC-2026-12-18-100000-C`.' }),
    strikePrice: t.field({ type: 'Decimal', description: 'The strike, USDC.', resolve: (r) => r.strikePrice }),
    expiry: t.exposeString('expiry', { description: 'The expiry date, YYYY-MM-DD (08:00 UTC that day).' }),
    optionType: t.field({ type: OptionTypeEnum, description: 'Call or put.', resolve: (r) => r.optionType }),
    bid: t.field({ type: 'Decimal', nullable: true, description: 'The best bid; null when no one bids.', resolve: (r) => r.bid }),
    ask: t.field({ type: 'Decimal', nullable: true, description: 'The best ask; null when no one offers.', resolve: (r) => r.ask }),
    lastPrice: t.field({ type: 'Decimal', nullable: true, description: 'The last trade\'s price; null before the first trade.', resolve: (r) => r.lastPrice }),
    openInterest: t.field({ type: 'Decimal', description: 'Open contracts (long positions together).', resolve: (r) => r.openInterest }),
    volume24h: t.field({ type: 'Decimal', description: 'Contracts traded in the last 24 hours.', resolve: (r) => r.volume24h }),
    markPrice: t.field({ type: 'Decimal', nullable: true, description: 'The theoretical mark (Black-76 at the smile\'s volatility); null without the spot and forward it needs.', resolve: (r) => r.markPrice }),
    markIv: t.field({ type: 'Decimal', nullable: true, description: 'The volatility of the mark, a fraction per year ("0.55" = 55%); null with markPrice.', resolve: (r) => r.markIv }),
    delta: t.field({ type: 'Decimal', nullable: true, description: 'The mark\'s Black-76 delta per contract (a call 0 to 1, a put −1 to 0); null with markPrice.', resolve: (r) => r.delta }),
  }),
})

export const BoardRef = builder.objectRef<OptionsBoard>('OptionsBoard').implement({
  description: 'Every live option of one underlying with its quotes, marks and activity (GET /markets/board).',
  fields: (t) => ({
    underlying: t.exposeString('underlying', { description: 'The underlying (BTC).' }),
    spotPrice: t.field({ type: 'Decimal', nullable: true, description: 'The spot index, USDC (premiums are paid at it); null without a spot mark.', resolve: (b) => b.spotPrice }),
    timestamp: t.field({ type: 'DateTime', description: 'When the board was computed.', resolve: (b) => b.timestampMs }),
    expiryForwards: t.field({ type: [ExpiryForwardRef], description: 'The forward of every listed expiry, nearest first.', resolve: (b) => b.expiryForwards }),
    calls: t.field({ type: [BoardRowRef], description: 'The calls, one row each.', complexity: { field: 1, multiplier: BOARD_ROWS_PER_SIDE }, resolve: (b) => b.calls }),
    puts: t.field({ type: [BoardRowRef], description: 'The puts, one row each.', complexity: { field: 1, multiplier: BOARD_ROWS_PER_SIDE }, resolve: (b) => b.puts }),
  }),
})

builder.queryField('optionsBoard', (t) =>
  t.field({
    nullable: true,
    type: BoardRef,
    description: 'The options board of an underlying; PRODUCT_NOT_FOUND for a name that is no family (a family without options has an empty board). REST: GET /markets/board; the subscription optionsBoard streams it.',
    args: { underlying: t.arg.string({ defaultValue: 'BTC', description: `The family (${FAMILY_LIST}); options are listed on BTC.` }) },
    // Black-76 over every option of the underlying: charged per call; aliases share one computation.
    complexity: optionsBoardCost,
    resolve: (_root, args, ctx) => {
      const underlying = args.underlying ?? 'BTC'
      return memoize(ctx, `optionsBoard:${underlying}`, () => optionsBoard(ctx.services.marketData, underlying))
    },
  }),
)
