-- CreateIndex
CREATE INDEX "orders_prunable_idx" ON "orders"("updatedAt") WHERE (status = ANY (ARRAY['canceled'::text, 'rejected'::text])) AND ("filledQuantity" = (0)::numeric) AND ("clientOrderId" IS NULL);
