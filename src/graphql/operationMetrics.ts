// Counts yoga's GraphQL operations and their errors (src/metrics/graphqlMetrics.ts): every operation that
// runs, by type and name, and the code of each error in its results (each subscription event's too);
// a request refused before it ran (unparsable, invalid) counts its errors only. First among the
// plugins, so an operation the depth or cost limit stops is counted with its refusal.
import { GraphQLError } from 'graphql'
import { handleStreamOrSingleExecutionResult, type Plugin } from 'graphql-yoga'
import type { GraphqlMetrics, OperationLabels } from '../metrics/graphqlMetrics.js'
import { errorCode } from './errors.js'

const operationNameOf = (context: unknown) => (context as { params?: { operationName?: string | null } }).params?.operationName

export function useOperationMetrics(metrics: GraphqlMetrics): Plugin {
  // As useClientErrors reads them: an error that is no GraphQLError by its message.
  const errored = (labels: OperationLabels, errors: readonly Error[] | undefined) => {
    if (errors?.length) metrics.errored(labels, errors.map((e) => errorCode(e instanceof GraphQLError ? e : new GraphQLError(e.message))))
  }
  return {
    onParse: ({ context }) => ({ result }) => {
      if (result instanceof Error) errored(metrics.refused('http', null, operationNameOf(context)), [result])
    },
    onValidate: ({ params, context }) => ({ result }) => errored(metrics.refused('http', params.documentAST, operationNameOf(context)), result),
    onExecute: ({ args }) => {
      const labels = metrics.operation('http', args.document, args.operationName)
      return { onExecuteDone: (payload) => handleStreamOrSingleExecutionResult(payload, ({ result }) => errored(labels, result.errors)) }
    },
    onSubscribe: ({ args }) => {
      const labels = metrics.operation('http', args.document, args.operationName)
      return { onSubscribeResult: (payload) => handleStreamOrSingleExecutionResult(payload, ({ result }) => errored(labels, result.errors)) }
    },
  }
}
