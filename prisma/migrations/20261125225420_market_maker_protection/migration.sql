-- AlterTable
ALTER TABLE "orders" ADD COLUMN     "mmp" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "mmp_states" (
    "userId" TEXT NOT NULL,
    "underlying" TEXT NOT NULL,
    "intervalMs" INTEGER NOT NULL,
    "frozenMs" INTEGER NOT NULL,
    "quantityLimit" BIGINT NOT NULL,
    "deltaLimit" BIGINT NOT NULL,
    "window" JSONB NOT NULL DEFAULT '[]',
    "trippedAt" TIMESTAMPTZ(3),
    "frozenUntil" TIMESTAMPTZ(3),
    "updatedAt" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "mmp_states_pkey" PRIMARY KEY ("userId","underlying")
);

