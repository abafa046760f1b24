-- AlterTable
ALTER TABLE "markets" ADD COLUMN     "engineState" JSONB NOT NULL DEFAULT '{}';
