// graphql-yoga serving the schema at /graphql (GraphiQL on GET from a browser), with our error shaping
// in place of yoga's masking so every error carries the spec's code and the request's correlation id.
import { createYoga, type Plugin, type YogaServerInstance } from 'graphql-yoga'
import { GraphQLError, Lexer, Source, TokenKind, type GraphQLSchema } from 'graphql'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { callerOf } from '../auth/httpAuth.js'
import type { Services } from '../services/services.js'
import { createContext, type GraphQLContext } from './context.js'
import { useClientErrors } from './errors.js'

export interface YogaServerContext {
  req: FastifyRequest
  reply: FastifyReply
}

export type Yoga = YogaServerInstance<YogaServerContext, GraphQLContext>

/**
 * Limits on a document, checked as it is parsed, before anything else reads it. graphql-js parses
 * recursively, so a document nested a couple of thousand levels deep (lists `[[[…`, objects `{a:{a:…`,
 * inline fragments) overflows the stack; no real query nests past a few dozen levels (selections stop
 * at the depth limit, 12 by default). The token cap is graphql-js's own `maxTokens`: it bounds the
 * parser's work and the AST, and sits well above real queries (the full introspection query is about
 * 200 tokens; a hundred aliases of a small selection about 1,700).
 */
export const MAX_DOCUMENT_NESTING = 100
export const MAX_DOCUMENT_TOKENS = 5_000

const OPENERS = new Set<string>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L])
const CLOSERS = new Set<string>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R])

/** Refuses a document nested deeper than the limit, reading it with graphql-js's lexer (no recursion);
 * lexical errors and the token cap are left to the parser, which reports them as syntax errors. */
function assertNesting(source: string | Source): void {
  const lexer = new Lexer(typeof source === 'string' ? new Source(source) : source)
  let depth = 0
  try {
    for (let n = 0, t = lexer.advance(); t.kind !== TokenKind.EOF && n <= MAX_DOCUMENT_TOKENS; n++, t = lexer.advance()) {
      if (OPENERS.has(t.kind)) {
        if (++depth > MAX_DOCUMENT_NESTING) {
          throw new GraphQLError(`Document is nested more than ${MAX_DOCUMENT_NESTING} levels deep`, {
            source: lexer.source,
            positions: [t.start],
            extensions: { code: 'INVALID_REQUEST', http: { status: 400 } },
          })
        }
      } else if (CLOSERS.has(t.kind)) depth--
    }
  } catch (err) {
    if (err instanceof GraphQLError && err.extensions['code'] === 'INVALID_REQUEST') throw err
  }
}

/** Parses within the nesting and token limits (a cached document was parsed within them already). */
function useDocumentLimits(): Plugin {
  return {
    onParse: ({ parseFn, setParseFn }) => {
      setParseFn((source, options) => {
        assertNesting(source)
        return parseFn(source, { ...options, maxTokens: MAX_DOCUMENT_TOKENS })
      })
    },
  }
}

export function createGraphQLServer(schema: GraphQLSchema, services: Services): Yoga {
  const log = services.log
  return createYoga<YogaServerContext, GraphQLContext>({
    schema,
    graphqlEndpoint: '/graphql',
    graphiql: { title: 'Exchange API' },
    landingPage: false,
    maskedErrors: false,
    logging: {
      debug: (...args) => log.debug(args.map(String).join(' ')),
      info: (...args) => log.info(args.map(String).join(' ')),
      warn: (...args) => log.warn(args.map(String).join(' ')),
      error: (...args) => log.error(args.map(String).join(' ')),
    },
    context: ({ req, reply }) => createContext(services, req.id, false, callerOf(req, reply, services.config)),
    plugins: [useDocumentLimits(), useClientErrors(log)],
  })
}
