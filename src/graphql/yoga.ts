// graphql-yoga serving the schema at /graphql (GraphiQL on GET from a browser, its assets from this
// server: ./graphiql.ts), with our error shaping in place of yoga's masking so every error carries the
// spec's code and the request's correlation id.
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga'
import type { ExecutionArgs, ExecutionResult, GraphQLSchema } from 'graphql'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { callerOf } from '../auth/httpAuth.js'
import { documentLimitError } from './documentLimits.js'
import { operationLimitError } from './operationLimits.js'
import type { Services } from '../services/services.js'
import { createContext, endContext, type GraphQLContext } from './context.js'
import { useCompiledExecution } from './compiledExecution.js'
import { useClientErrors } from './errors.js'
import { renderGraphiQLPage } from './graphiql.js'
import { useOperationMetrics } from './operationMetrics.js'

export interface YogaServerContext {
  req: FastifyRequest
  reply: FastifyReply
}

export type Yoga = YogaServerInstance<YogaServerContext, GraphQLContext>

/** Parses within the nesting and token limits (a cached document was parsed within them already). */
function useDocumentLimits(): Plugin {
  return {
    onParse: ({ parseFn, setParseFn }) => {
      setParseFn((source, options) => {
        const refused = documentLimitError(source)
        if (refused) throw refused
        return parseFn(source, options)
      })
    },
  }
}

/** Refuses an operation past the depth or cost limit before it executes: one request error, no data. */
function useOperationLimits(): Plugin {
  const refuse = ({ args, setResultAndStopExecution }: { args: ExecutionArgs; setResultAndStopExecution: (r: ExecutionResult) => void }) => {
    const refused = operationLimitError(args)
    if (refused) setResultAndStopExecution({ errors: [refused] })
  }
  return { onExecute: refuse, onSubscribe: refuse }
}

/** Ends a query's or mutation's context once it has executed (endContext); a subscription's lives on. */
export function useEndContext(): Plugin {
  return { onExecute: ({ args }) => ({ onExecuteDone: () => endContext(args.contextValue) }) }
}

/** What GraphiQL shows a first-time visitor: a public query that answers on a fresh install. */
const GRAPHIQL_DEFAULT_QUERY = `# Market data needs no credential. For \`me\` and mutations, put
# {"authorization": "Bearer svc_sk_…"} in Headers below, or sign in
# on this origin first (its session cookie goes along).
{
  markets(first: 5) {
    edges { node { marketId type mark { price } } }
  }
}
`

export function createGraphQLServer(schema: GraphQLSchema, services: Services): Yoga {
  const log = services.log
  return createYoga<YogaServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: { title: 'Exchange API', defaultQuery: GRAPHIQL_DEFAULT_QUERY },
    renderGraphiQL: renderGraphiQLPage,
    landingPage: false,
    maskedErrors: false,
    logging: {
      debug: (...args) => log.debug(args.map(String).join(' ')),
      info: (...args) => log.info(args.map(String).join(' ')),
      warn: (...args) => log.warn(args.map(String).join(' ')),
      error: (...args) => log.error(args.map(String).join(' ')),
    },
    context: ({ req, reply }) => createContext(services, req.id, false, callerOf(req, reply, services.config)),
    plugins: [useOperationMetrics(services.metrics.graphql), useDocumentLimits(), useOperationLimits(), useClientErrors(log), useCompiledExecution(), useEndContext()],
  })
}
