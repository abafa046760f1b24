// Relay connections, of two kinds.
// - Lists held in memory (markets, statistics, instruments, products, the caller's positions and keys)
//   page both ways, `first`/`after` and `last`/`before` (resolveArrayConnection of @pothos/plugin-relay),
//   and carry `totalCount`: the list is already there, so counting it is free.
// - The account's histories (orders, trades, deposits, withdrawals, liquidations) are pages of a
//   PostgreSQL keyset, newest first, forward only: they take `first`/`after` and no `before`/`last`
//   (an argument that did nothing would mislead), and carry no count (a COUNT over a user's whole
//   history would cost more than the page).
import type { ArgBuilder, ObjectRef, SchemaTypes } from '@pothos/core'
import { builder } from './builder.js'
import type { PageSize } from './cost.js'

type Types = typeof builder extends PothosSchemaTypes.SchemaBuilder<infer T extends SchemaTypes> ? T : never

const n = (v: number) => v.toLocaleString('en-US')

/** The connection type of a list held in memory, with its edge type and `totalCount`. */
export function countedConnection<T>(type: ObjectRef<Types, T>, name: string, items: string, page: PageSize) {
  const ref = builder.connectionObject(
    {
      type,
      name: `${name}Connection`,
      description: `A page of ${items} (${n(page.defaultSize)} unless \`first\` or \`last\` asks for another size, at most ${n(page.maxSize)}); pages both ways (first/after, last/before) and counts the whole list.`,
    },
    { name: `${name}Edge`, description: `One of the ${items}, with its cursor.` },
  )
  builder.objectField(ref, 'totalCount', (t) =>
    t.int({
      description: `How many ${items} the whole list holds (every page, with the same filters).`,
      resolve: (c) => (c as unknown as { totalCount: number }).totalCount,
    }),
  )
  return ref
}

/** The connection type of a history paged forward in PostgreSQL: no count. */
export function forwardConnection<T>(type: ObjectRef<Types, T>, name: string, items: string) {
  return builder.connectionObject(
    { type, name: `${name}Connection`, description: `A page of ${items}, newest first; pages forward only (first/after).` },
    { name: `${name}Edge`, description: `One of the ${items}, with its cursor.` },
  )
}

/** The arguments of a forward-only connection. */
export function forwardArgs(arg: ArgBuilder<Types>, page: PageSize) {
  return {
    first: arg.int({ description: `Page size, 1 to ${n(page.maxSize)}; default ${n(page.defaultSize)}.` }),
    after: arg.string({ description: 'Items after this cursor (the `endCursor` of the page before); absent: from the newest.' }),
  }
}
