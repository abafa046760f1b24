-- AlterTable
ALTER TABLE "withdrawals" ADD COLUMN     "nonce" INTEGER,
ADD COLUMN     "rawTx" TEXT;

-- CreateTable
CREATE TABLE "chain_cursors" (
    "name" TEXT NOT NULL,
    "blockNumber" BIGINT NOT NULL,
    "blockHash" TEXT NOT NULL,
    "headBlock" BIGINT NOT NULL,
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "chain_cursors_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "deposits_status_idx" ON "deposits"("status");

-- CreateIndex
CREATE INDEX "withdrawals_status_idx" ON "withdrawals"("status");
