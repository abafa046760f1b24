// The options board: spot, forwards per expiry, and a row per listed strike.
import { optionsBoard, type BoardRow, type OptionsBoard } from '../../services/optionsBoard.js'
import { builder } from '../builder.js'
import { memoize } from '../context.js'
import { BOARD_ROWS_PER_SIDE, optionsBoardCost } from '../cost.js'
import { OptionTypeEnum } from './markets.js'

const ExpiryForwardRef = builder.objectRef<OptionsBoard['expiryForwards'][number]>('ExpiryForward').implement({
  fields: (t) => ({
    expiry: t.exposeString('expiry', { description: 'YYYY-MM-DD' }),
    forward: t.field({ type: 'Decimal', resolve: (f) => f.forward }),
    source: t.exposeString('source', { description: '"future" (the matching future\'s mark) or "synthetic" (spot·e^(rT))' }),
  }),
})

const BoardRowRef = builder.objectRef<BoardRow>('OptionsBoardRow').implement({
  description: 'One option. Prices are in units of the underlying; a null bid or ask means no order on that side, a null lastPrice no trade yet.',
  fields: (t) => ({
    marketId: t.exposeString('marketId'),
    strikePrice: t.field({ type: 'Decimal', resolve: (r) => r.strikePrice }),
    expiry: t.exposeString('expiry', { description: 'YYYY-MM-DD' }),
    optionType: t.field({ type: OptionTypeEnum, resolve: (r) => r.optionType }),
    bid: t.field({ type: 'Decimal', nullable: true, resolve: (r) => r.bid }),
    ask: t.field({ type: 'Decimal', nullable: true, resolve: (r) => r.ask }),
    lastPrice: t.field({ type: 'Decimal', nullable: true, resolve: (r) => r.lastPrice }),
    openInterest: t.field({ type: 'Decimal', resolve: (r) => r.openInterest }),
    volume24h: t.field({ type: 'Decimal', resolve: (r) => r.volume24h }),
    markPrice: t.field({ type: 'Decimal', nullable: true, resolve: (r) => r.markPrice }),
    markIv: t.field({ type: 'Decimal', nullable: true, resolve: (r) => r.markIv }),
    delta: t.field({ type: 'Decimal', nullable: true, resolve: (r) => r.delta }),
  }),
})

export const BoardRef = builder.objectRef<OptionsBoard>('OptionsBoard').implement({
  fields: (t) => ({
    underlying: t.exposeString('underlying'),
    spotPrice: t.field({ type: 'Decimal', nullable: true, resolve: (b) => b.spotPrice }),
    timestamp: t.field({ type: 'DateTime', resolve: (b) => b.timestampMs }),
    expiryForwards: t.field({ type: [ExpiryForwardRef], resolve: (b) => b.expiryForwards }),
    calls: t.field({ type: [BoardRowRef], complexity: { field: 1, multiplier: BOARD_ROWS_PER_SIDE }, resolve: (b) => b.calls }),
    puts: t.field({ type: [BoardRowRef], complexity: { field: 1, multiplier: BOARD_ROWS_PER_SIDE }, resolve: (b) => b.puts }),
  }),
})

builder.queryField('optionsBoard', (t) =>
  t.field({
    nullable: true,
    type: BoardRef,
    args: { underlying: t.arg.string({ defaultValue: 'BTC' }) },
    // Black-76 over every option of the underlying: charged per call; aliases share one computation.
    complexity: optionsBoardCost,
    resolve: (_root, args, ctx) => {
      const underlying = args.underlying ?? 'BTC'
      return memoize(ctx, `optionsBoard:${underlying}`, () => optionsBoard(ctx.services.marketData, underlying))
    },
  }),
)
