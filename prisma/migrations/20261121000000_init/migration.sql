-- CreateTable
CREATE TABLE "users" (
    "id" TEXT NOT NULL,
    "address" TEXT NOT NULL,
    "rateTier" INTEGER NOT NULL DEFAULT 1,
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "scope" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "allowedIps" TEXT[],
    "expiresAt" TIMESTAMPTZ(3),
    "createdAt" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revokedAt" TIMESTAMPTZ(3),
    "lastUsedAt" TIMESTAMPTZ(3),
    "lastUsedIp" TEXT,

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_key_audit" (
    "id" BIGSERIAL NOT NULL,
    "keyId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "action" TEXT NOT NULL,
    "ip" TEXT,
    "userAgent" TEXT,
    "at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_key_audit_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "markets" (
    "id" TEXT NOT NULL,
    "family" TEXT NOT NULL,
    "assetClass" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "base" TEXT NOT NULL,
    "quote" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "tickSize" DECIMAL(38,18) NOT NULL,
    "stepSize" DECIMAL(38,18) NOT NULL,
    "minQuantity" DECIMAL(38,18) NOT NULL,
    "priceBandBps" INTEGER NOT NULL,
    "takerFeeBps" DECIMAL(12,4) NOT NULL,
    "makerFeeBps" DECIMAL(12,4) NOT NULL,
    "fundingIntervalMs" INTEGER,
    "fundingMaxRateBps" DECIMAL(12,4),
    "expiry" TIMESTAMPTZ(3),
    "strike" DECIMAL(38,18),
    "optionType" TEXT,
    "staleMarkMs" INTEGER NOT NULL,
    "initialMarginPct" DECIMAL(12,4) NOT NULL,
    "maintenanceMarginPct" DECIMAL(12,4) NOT NULL,
    "listedAt" TIMESTAMPTZ(3) NOT NULL,
    "settledAt" TIMESTAMPTZ(3),
    "settlementPrice" DECIMAL(38,18),
    "bookSeq" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "markets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "orders" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "marketId" TEXT NOT NULL,
    "clientOrderId" TEXT,
    "side" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "timeInForce" TEXT NOT NULL,
    "price" DECIMAL(38,18),
    "quantity" DECIMAL(38,18) NOT NULL,
    "filledQuantity" DECIMAL(38,18) NOT NULL,
    "status" TEXT NOT NULL,
    "postOnly" BOOLEAN NOT NULL DEFAULT false,
    "reduceOnly" BOOLEAN NOT NULL DEFAULT false,
    "marginMode" TEXT,
    "stopPrice" DECIMAL(38,18),
    "takeProfitPrice" DECIMAL(38,18),
    "stopLossPrice" DECIMAL(38,18),
    "triggeredAt" TIMESTAMPTZ(3),
    "parentOrderId" TEXT,
    "quoteId" TEXT,
    "cancelReason" TEXT,
    "seq" BIGINT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "orders_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "fills" (
    "id" TEXT NOT NULL,
    "matchId" TEXT NOT NULL,
    "marketId" TEXT NOT NULL,
    "orderId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "side" TEXT NOT NULL,
    "role" TEXT NOT NULL,
    "price" DECIMAL(38,18) NOT NULL,
    "quantity" DECIMAL(38,18) NOT NULL,
    "fee" DECIMAL(38,6) NOT NULL,
    "feeBps" DECIMAL(12,4) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "fills_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "positions" (
    "userId" TEXT NOT NULL,
    "marketId" TEXT NOT NULL,
    "marginMode" TEXT NOT NULL,
    "quantity" DECIMAL(38,18) NOT NULL,
    "avgPrice" DECIMAL(38,18) NOT NULL,
    "cost" DECIMAL(38,6) NOT NULL,
    "realizedPnl" DECIMAL(38,6) NOT NULL,
    "fundingPayment" DECIMAL(38,6) NOT NULL,
    "isolatedMargin" DECIMAL(38,6) NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "positions_pkey" PRIMARY KEY ("userId","marketId")
);

-- CreateTable
CREATE TABLE "balances" (
    "userId" TEXT NOT NULL,
    "bucket" TEXT NOT NULL,
    "amount" DECIMAL(38,6) NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "balances_pkey" PRIMARY KEY ("userId","bucket")
);

-- CreateTable
CREATE TABLE "ledger_entries" (
    "id" BIGSERIAL NOT NULL,
    "userId" TEXT NOT NULL,
    "bucket" TEXT NOT NULL,
    "amount" DECIMAL(38,6) NOT NULL,
    "balanceAfter" DECIMAL(38,6) NOT NULL,
    "kind" TEXT NOT NULL,
    "refId" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "funding_payments" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "marketId" TEXT NOT NULL,
    "periodEnd" TIMESTAMPTZ(3) NOT NULL,
    "rate" DECIMAL(20,12) NOT NULL,
    "quantity" DECIMAL(38,18) NOT NULL,
    "markPrice" DECIMAL(38,18) NOT NULL,
    "amount" DECIMAL(38,6) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "funding_payments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "mark_prices" (
    "id" BIGSERIAL NOT NULL,
    "marketId" TEXT NOT NULL,
    "price" DECIMAL(38,18) NOT NULL,
    "indexPrice" DECIMAL(38,18),
    "source" TEXT NOT NULL,
    "sourceTimestamp" TIMESTAMPTZ(3) NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "mark_prices_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "candles" (
    "marketId" TEXT NOT NULL,
    "start" TIMESTAMPTZ(3) NOT NULL,
    "open" DECIMAL(38,18) NOT NULL,
    "high" DECIMAL(38,18) NOT NULL,
    "low" DECIMAL(38,18) NOT NULL,
    "close" DECIMAL(38,18) NOT NULL,
    "volume" DECIMAL(38,18) NOT NULL,
    "trades" INTEGER NOT NULL,

    CONSTRAINT "candles_pkey" PRIMARY KEY ("marketId","start")
);

-- CreateTable
CREATE TABLE "deposits" (
    "id" TEXT NOT NULL,
    "txHash" TEXT NOT NULL,
    "logIndex" INTEGER NOT NULL,
    "blockNumber" BIGINT NOT NULL,
    "fromAddress" TEXT NOT NULL,
    "userId" TEXT,
    "amount" DECIMAL(38,6) NOT NULL,
    "status" TEXT NOT NULL,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,
    "creditedAt" TIMESTAMPTZ(3),

    CONSTRAINT "deposits_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "withdrawals" (
    "id" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "amount" DECIMAL(38,6) NOT NULL,
    "toAddress" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "txHash" TEXT,
    "error" TEXT,
    "createdAt" TIMESTAMPTZ(3) NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "withdrawals_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "dead_man_switches" (
    "userId" TEXT NOT NULL,
    "cancelAt" TIMESTAMPTZ(3),
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "dead_man_switches_pkey" PRIMARY KEY ("userId")
);

-- CreateTable
CREATE TABLE "engine_offsets" (
    "name" TEXT NOT NULL,
    "epoch" TEXT NOT NULL,
    "lastStreamId" TEXT NOT NULL,
    "fencingToken" BIGINT NOT NULL,
    "counters" JSONB NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "engine_offsets_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_address_key" ON "users"("address");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_secretHash_key" ON "api_keys"("secretHash");

-- CreateIndex
CREATE INDEX "api_keys_userId_createdAt_idx" ON "api_keys"("userId", "createdAt");

-- CreateIndex
CREATE INDEX "api_key_audit_keyId_at_idx" ON "api_key_audit"("keyId", "at");

-- CreateIndex
CREATE INDEX "markets_family_type_idx" ON "markets"("family", "type");

-- CreateIndex
CREATE INDEX "orders_userId_id_idx" ON "orders"("userId", "id");

-- CreateIndex
CREATE INDEX "orders_status_seq_idx" ON "orders"("status", "seq");

-- CreateIndex
CREATE INDEX "orders_marketId_status_idx" ON "orders"("marketId", "status");

-- CreateIndex
CREATE UNIQUE INDEX "orders_userId_clientOrderId_key" ON "orders"("userId", "clientOrderId");

-- CreateIndex
CREATE INDEX "fills_userId_id_idx" ON "fills"("userId", "id");

-- CreateIndex
CREATE INDEX "fills_marketId_createdAt_idx" ON "fills"("marketId", "createdAt");

-- CreateIndex
CREATE INDEX "fills_orderId_idx" ON "fills"("orderId");

-- CreateIndex
CREATE INDEX "positions_marketId_idx" ON "positions"("marketId");

-- CreateIndex
CREATE INDEX "ledger_entries_userId_bucket_id_idx" ON "ledger_entries"("userId", "bucket", "id");

-- CreateIndex
CREATE INDEX "funding_payments_userId_createdAt_idx" ON "funding_payments"("userId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "funding_payments_marketId_periodEnd_userId_key" ON "funding_payments"("marketId", "periodEnd", "userId");

-- CreateIndex
CREATE INDEX "mark_prices_marketId_id_idx" ON "mark_prices"("marketId", "id");

-- CreateIndex
CREATE INDEX "deposits_fromAddress_idx" ON "deposits"("fromAddress");

-- CreateIndex
CREATE UNIQUE INDEX "deposits_txHash_logIndex_key" ON "deposits"("txHash", "logIndex");

-- CreateIndex
CREATE INDEX "withdrawals_userId_createdAt_idx" ON "withdrawals"("userId", "createdAt");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_userId_fkey" FOREIGN KEY ("userId") REFERENCES "users"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- Ledger is append-only (not modelled by Prisma, so `--check` does not see it): every balance movement
-- stays on record; corrections are new entries, never edits.
CREATE FUNCTION "ledger_entries_append_only"() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger_entries is append-only: % refused', TG_OP
    USING ERRCODE = 'restrict_violation';
END;
$$;

CREATE TRIGGER "ledger_entries_append_only"
BEFORE UPDATE OR DELETE ON "ledger_entries"
FOR EACH ROW EXECUTE FUNCTION "ledger_entries_append_only"();
