// The queries a trading front-end's screens send, each asking for every field it shows (every scalar of
// every type it reads): the cost model's default limits must admit each one (test/e2e/graphql.cost.test.ts).

const MARK = 'mark { marketId price indexPrice source sourceTimestamp }'
const MARKET = `id marketId family assetClass base quote type tradingStatus tickSize stepSize minQuantity priceBandBps
  priceBandLow priceBandHigh takerFeeBps makerFeeBps fundingIntervalMs fundingMaxRateBps expiry strike optionType listedAt
  settledAt settlementPrice ${MARK}`
const STATS = 'marketId last high24h low24h volume24h change24h openInterest fundingRate nextFundingAt'
const PAGE_INFO = 'pageInfo { hasNextPage hasPreviousPage startCursor endCursor }'
const BOOK = 'marketId sequence timestamp bids { price size } asks { price size }'
const CANDLE = 'timestamp open high low close volume'
const ORDER = `id userId marketId clientOrderId side type timeInForce price quantity filledQuantity status postOnly reduceOnly
  marginMode stopPrice takeProfitPrice stopLossPrice triggeredAt parentOrderId quoteId cancelReason createdAt updatedAt`
const TRADE = 'tradeId marketId orderId side price quantity fee feeBps role type amount fundingRate createdAt'
const POSITION = `marketId side quantity avgPrice markPrice realizedPnl unrealizedPnl fundingPayment marginMode initialMargin
  maintenanceMargin isolatedMargin`
const BALANCE = 'onchainDepositTotal tradableBalance walletBalance spotBalance perpsBalance optionsBalance pendingWithdrawalTotal'
const LIQUIDATION = `id marketId orderId marginMode quantity closedQuantity price realizedPnl fee insurance equity maintenanceMargin
  createdAt`
const API_KEY = 'id name scope allowedIps expiresAt createdAt revokedAt lastUsedAt lastUsedIp status'
const BOARD_ROW = 'marketId strikePrice expiry optionType bid ask lastPrice openInterest volume24h markPrice markIv delta'
const BOARD = `underlying spotPrice timestamp expiryForwards { expiry forward source } calls { ${BOARD_ROW} } puts { ${BOARD_ROW} }`

export interface ScreenQuery {
  query: string
  /** Needs a signed-in session (the screen reads the caller's account). */
  signedIn: boolean
  variables?: (optionId: string) => Record<string, unknown>
}

export const SCREEN_QUERIES: Record<string, ScreenQuery> = {
  /** Every listed market with its mark, and every statistic: the markets page. */
  'the market list': {
    signedIn: false,
    query: `query MarketList {
      markets { totalCount edges { cursor node { ${MARKET} } } ${PAGE_INFO} }
      marketStats { edges { node { ${STATS} } } }
    }`,
  },
  /** One market: its book, chart, statistics, and the caller's balance, positions, open orders and fills. */
  'a trading screen': {
    signedIn: true,
    variables: () => ({ m: 'BTC-PERP' }),
    query: `query TradingScreen($m: String!) {
      market(id: $m) { ${MARKET} }
      orderbook(marketId: $m) { ${BOOK} }
      marketStats(marketId: $m) { edges { node { ${STATS} } } }
      candles(marketId: $m, resolution: "15") { ${CANDLE} }
      me {
        id address rateTier createdAt
        balance { ${BALANCE} }
        positions { edges { node { ${POSITION} } } }
        openOrders: orders(status: OPEN) { edges { cursor node { ${ORDER} } } ${PAGE_INFO} }
        trades(marketId: $m, first: 50) { edges { cursor node { ${TRADE} } } ${PAGE_INFO} }
      }
    }`,
  },
  /** The options board of BTC, the option markets, one option's book and the options bucket. */
  'an options board screen': {
    signedIn: true,
    variables: (optionId) => ({ o: optionId }),
    query: `query OptionsScreen($o: String!) {
      optionsBoard(underlying: "BTC") { ${BOARD} }
      markets(type: OPTION, family: "BTC") { edges { node { marketId strike expiry optionType tickSize stepSize minQuantity takerFeeBps makerFeeBps tradingStatus } } }
      orderbook(marketId: $o, linear: false) { ${BOOK} }
      me { balance { ${BALANCE} } }
    }`,
  },
  /** The account page: balances, positions, a full page of orders and of fills, liquidations, API keys. */
  'an account screen': {
    signedIn: true,
    query: `query Account {
      me {
        id address rateTier createdAt
        balance { ${BALANCE} }
        positions { edges { node { ${POSITION} } } }
        orders(first: 100) { edges { cursor node { ${ORDER} } } ${PAGE_INFO} }
        trades(first: 100) { edges { cursor node { ${TRADE} } } ${PAGE_INFO} }
        liquidations(first: 50) { edges { node { ${LIQUIDATION} } } ${PAGE_INFO} }
        apiKeys { edges { node { ${API_KEY} } } }
      }
    }`,
  },
  /** The instruments and products catalog, with their markets. */
  'a catalog screen': {
    signedIn: false,
    query: `query Catalog {
      instruments { edges { node { id type underlying quote basePrice computedAt } } }
      products { edges { node { productId underlying type assetClass marginGroup takerFeeBps makerFeeBps markets { marketId type tradingStatus expiry strike optionType } } } }
    }`,
  },
}
