-- CreateTable
CREATE TABLE "position_events" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "marketId" TEXT NOT NULL,
    "orderId" TEXT,
    "marginMode" TEXT NOT NULL,
    "quantity" DECIMAL(38,18) NOT NULL,
    "closedQuantity" DECIMAL(38,18) NOT NULL,
    "price" DECIMAL(38,18),
    "realizedPnl" DECIMAL(38,6) NOT NULL,
    "fee" DECIMAL(38,6) NOT NULL,
    "insurance" DECIMAL(38,6) NOT NULL,
    "equity" DECIMAL(38,6),
    "maintenanceMargin" DECIMAL(38,6),
    "createdAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "position_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "position_events_userId_id_idx" ON "position_events"("userId", "id");

-- CreateIndex
CREATE INDEX "position_events_orderId_idx" ON "position_events"("orderId");
