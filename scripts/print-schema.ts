// Prints schema.graphql from the Pothos schema; with --check, exits 1 when the checked-in file is stale.
import { readFile, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { lexicographicSortSchema, printSchema } from 'graphql'
import { schema } from '../src/graphql/schema.js'

export const SCHEMA_FILE = fileURLToPath(new URL('../schema.graphql', import.meta.url))

export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const printed = printedSchema()
  if (process.argv.includes('--check')) {
    const current = await readFile(SCHEMA_FILE, 'utf8').catch(() => '')
    if (current !== printed) {
      console.error('schema.graphql is stale: run `npm run schema:print` and commit it')
      process.exit(1)
    }
    console.log('schema.graphql is up to date')
  } else {
    await writeFile(SCHEMA_FILE, printed)
    console.log(`wrote ${SCHEMA_FILE}`)
  }
}
