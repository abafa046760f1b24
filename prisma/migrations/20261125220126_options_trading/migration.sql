-- AlterTable
ALTER TABLE "balances" ADD COLUMN     "locked" DECIMAL(38,6) NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "fills" ADD COLUMN     "indexPrice" DECIMAL(38,18),
ADD COLUMN     "premium" DECIMAL(38,6);

-- AlterTable
ALTER TABLE "markets" ADD COLUMN     "pricing" JSONB;

-- AlterTable
ALTER TABLE "positions" ADD COLUMN     "openTickLots" DECIMAL(38,0) NOT NULL DEFAULT 0;
