// Prisma CLI configuration. The CLI's native schema engine cannot be downloaded here (no network but the
// npm registry); `generate` only needs the variable to name an existing file, and migrations are applied
// by our own runner (src/store/migrate.ts) and authored with the wasm engine (scripts/migrate-create.ts).
process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= '/bin/false'

import { defineConfig } from 'prisma/config'

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/exchange' },
})
