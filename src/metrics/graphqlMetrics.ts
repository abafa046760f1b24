// The GraphQL families of an API node: operations run, by transport (yoga over HTTP, graphql-ws), type and
// operation name, and the errors they answered with, by the error table's code. Operation names come
// from clients, so the label takes the first MAX_NAMES distinct ones and calls the rest `other` (and a
// name that is no GraphQL name `invalid`).
import { getOperationAST, type DocumentNode } from 'graphql'
import { Counter, type Registry } from 'prom-client'

export type GraphqlTransport = 'http' | 'ws'

/** The labels of one operation, which its errors carry too. */
export interface OperationLabels {
  transport: GraphqlTransport
  /** query, mutation, subscription; `unknown` for a request refused before its operation was known. */
  type: string
  operation: string
}

const MAX_NAMES = 200
/** A GraphQL name of reasonable length; anything else a client sends as operationName is `invalid`. */
const NAME = /^[_A-Za-z][_0-9A-Za-z]{0,99}$/

export class GraphqlMetrics {
  private readonly operations: Counter<keyof OperationLabels>
  private readonly errors: Counter<keyof OperationLabels | 'code'>
  private readonly names = new Set<string>()

  constructor(registers: Registry[]) {
    this.operations = new Counter({
      name: 'exchange_graphql_operations_total',
      help: 'GraphQL operations run (each subscription once), by transport, type and operation name',
      labelNames: ['transport', 'type', 'operation'],
      registers,
    })
    this.errors = new Counter({
      name: 'exchange_graphql_errors_total',
      help: 'Errors in GraphQL responses, by transport, type, operation name and error code',
      labelNames: ['transport', 'type', 'operation', 'code'],
      registers,
    })
  }

  /** Counts an operation about to run; its labels are returned for its errors. */
  operation(transport: GraphqlTransport, document: DocumentNode, operationName: string | null | undefined): OperationLabels {
    const op = getOperationAST(document, operationName)
    const labels = { transport, type: op?.operation ?? 'unknown', operation: this.nameLabel(op?.name?.value ?? operationName) }
    this.operations.inc(labels)
    return labels
  }

  /**
   * The labels of a request refused before its operation ran (unparsable, invalid): not an operation run.
   * Its type and name come from its document when it parsed, else `unknown` and the name the client gave.
   */
  refused(transport: GraphqlTransport, document: DocumentNode | null, operationName: string | null | undefined): OperationLabels {
    const op = document ? getOperationAST(document, operationName) : null
    return { transport, type: op?.operation ?? 'unknown', operation: this.nameLabel(op?.name?.value ?? operationName) }
  }

  /** Counts the codes of an operation's errors. */
  errored(labels: OperationLabels, codes: Iterable<string>): void {
    for (const code of codes) this.errors.inc({ ...labels, code })
  }

  private nameLabel(name: string | null | undefined): string {
    if (!name) return 'anonymous'
    if (this.names.has(name)) return name
    if (!NAME.test(name)) return 'invalid'
    if (this.names.size >= MAX_NAMES) return 'other'
    this.names.add(name)
    return name
  }
}
