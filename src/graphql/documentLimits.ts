// Limits on a GraphQL document, checked before the parser reads it, over HTTP (yoga) and WebSocket
// (graphql-ws) alike. graphql-js parses recursively, so a document nested a couple of thousand levels
// deep (lists `[[[…`, objects `{a:{a:…`, inline fragments) overflows the stack; no real query nests past
// a few dozen levels (selections stop at the depth limit, 12 by default). The token cap bounds the
// parser's work and the AST, well above real queries (the full introspection query is about 200
// tokens; a hundred aliases of a small selection about 1,700).
import { GraphQLError, Lexer, Source, TokenKind } from 'graphql'

export const MAX_DOCUMENT_NESTING = 100
export const MAX_DOCUMENT_TOKENS = 5_000

const OPENERS = new Set<string>([TokenKind.BRACE_L, TokenKind.BRACKET_L, TokenKind.PAREN_L])
const CLOSERS = new Set<string>([TokenKind.BRACE_R, TokenKind.BRACKET_R, TokenKind.PAREN_R])

const refusal = (message: string, source: Source, at: number) =>
  new GraphQLError(message, { source, positions: [at], extensions: { code: 'INVALID_REQUEST', http: { status: 400 } } })

/**
 * The INVALID_REQUEST error of a document nested deeper or longer than the limits, or null. Reads it
 * with graphql-js's lexer (no recursion); a lexical error is left to the parser, which reports it as a
 * syntax error.
 */
export function documentLimitError(source: string | Source): GraphQLError | null {
  const lexer = new Lexer(typeof source === 'string' ? new Source(source) : source)
  let depth = 0
  try {
    for (let n = 1, t = lexer.advance(); t.kind !== TokenKind.EOF; n++, t = lexer.advance()) {
      if (n > MAX_DOCUMENT_TOKENS) return refusal(`Document has more than ${MAX_DOCUMENT_TOKENS} tokens`, lexer.source, t.start)
      if (OPENERS.has(t.kind)) {
        if (++depth > MAX_DOCUMENT_NESTING) return refusal(`Document is nested more than ${MAX_DOCUMENT_NESTING} levels deep`, lexer.source, t.start)
      } else if (CLOSERS.has(t.kind)) depth--
    }
  } catch {
    // a lexical error: the parser reports it
  }
  return null
}
