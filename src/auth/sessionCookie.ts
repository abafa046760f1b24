// Owns the session cookie: its name and attributes (HttpOnly so scripts cannot read it, SameSite=Lax so
// other sites cannot send it with their POSTs, Secure everywhere but development, where the API is
// served over plain http://localhost), and the setter resolvers use when the transport is HTTP.
import type { FastifyReply } from 'fastify'
import type { Config } from '../config/env.js'

export const SESSION_COOKIE = 'session'

/** How a resolver sets or ends the session cookie without knowing the transport. */
export interface SessionCookies {
  set(token: string, expiresAt: Date): void
  clear(): void
}

export function sessionCookies(reply: FastifyReply, config: Config): SessionCookies {
  const attributes = { path: '/', httpOnly: true, sameSite: 'lax', secure: config.env !== 'development' } as const
  return {
    set: (token, expiresAt) => {
      reply.setCookie(SESSION_COOKIE, token, { ...attributes, expires: expiresAt })
    },
    clear: () => {
      reply.clearCookie(SESSION_COOKIE, attributes)
    },
  }
}
