// graphql-yoga serving the schema at /graphql (GraphiQL on GET from a browser), with our error shaping
// in place of yoga's masking so every error carries the spec's code and the request's correlation id.
import { createYoga, type YogaServerInstance } from 'graphql-yoga'
import type { GraphQLSchema } from 'graphql'
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
    plugins: [useClientErrors(log)],
  })
}
