// Every Redis key and channel the system uses, in one place. All start with the configured prefix so
// several deployments or test runs share one Redis without colliding.
//
//   {p}engine:commands        stream   the command log; the engine's only input
//   {p}engine:epoch           string   id of this command stream's lifetime (changes when Redis is wiped)
//   {p}engine:snapshot        string   latest engine snapshot JSON ({epoch, streamId, state})
//   {p}engine:lease           string   "{instance}" of the engine leader, with a TTL (SET NX PX)
//   {p}engine:fault           string   tests only: arms the ENGINE_FAULT point once (GETDEL by the engine)
//   {p}scheduler:lease        string   same, for the scheduler leader
//   {p}maker:lease            string   same, for the liquidity simulator (role maker): one quoting instance
//   {p}indexer:lease          string   same, for the chain roles (deposit indexer, withdrawal worker): one vault signer
//   {p}replies:{node}         channel  engine → API node replies to commands that node sent
//   {p}book:{marketId}        string   depth mirror: {marketId, sequence, bids, asks, timestamp}
//   {p}marks                  hash     marketId → latest mark JSON
//   {p}funding                hash     perpetual marketId → {fundingRate (current period's estimate), nextFundingAtMs}
//   {p}feed:paused            string   "1" while an operator has paused the simulated mark feed (feedPause.ts)
//   {p}ev:{stream}            channel  live events of one stream (book:X, prices:X, marks:F, markets...)
//   {p}evlog:{stream}         stream   the same events, capped, for replay
//   {p}auth:nonce:{nonce}     string   "1" for an issued, unused SIWE nonce; PX = NONCE_TTL_MS; GETDEL consumes
//   {p}auth:session:{sid}     string   session record JSON {userId, address, createdAt}; PX = SESSION_TTL_MS;
//                                      a JWT or cookie naming a missing sid is dead (logout deletes it)
//   {p}auth:revoked:{keyId}   string   "1" once an API key is revoked; outlives every node's key cache, so a
//                                      node holding the key cached refuses it on the next request
//                                      (src/auth/revocationMarkers.ts)
//   {p}auth:events            channel  invalidations for every API node's caches and private streams:
//                                      {type:'key-revoked', keyId}, {type:'session-ended', sessionId} and
//                                      {type:'rate-tier', userId}
//   {p}rate:order:{userId}    string   GCRA theoretical arrival time (ms) of the user's order-path pool;
//                                      PX until the pool is full again

export interface RedisKeys {
  readonly prefix: string
  readonly commands: string
  readonly epoch: string
  readonly snapshot: string
  readonly engineLease: string
  readonly engineFault: string
  readonly schedulerLease: string
  readonly makerLease: string
  readonly indexerLease: string
  readonly marks: string
  readonly funding: string
  readonly feedPaused: string
  readonly authEvents: string
  replies(node: string): string
  book(marketId: string): string
  eventChannel(stream: string): string
  eventLog(stream: string): string
  siweNonce(nonce: string): string
  session(sessionId: string): string
  revokedKey(keyId: string): string
  orderRate(userId: string): string
}

export function redisKeys(prefix: string): RedisKeys {
  return {
    prefix,
    commands: `${prefix}engine:commands`,
    epoch: `${prefix}engine:epoch`,
    snapshot: `${prefix}engine:snapshot`,
    engineLease: `${prefix}engine:lease`,
    engineFault: `${prefix}engine:fault`,
    schedulerLease: `${prefix}scheduler:lease`,
    makerLease: `${prefix}maker:lease`,
    indexerLease: `${prefix}indexer:lease`,
    marks: `${prefix}marks`,
    funding: `${prefix}funding`,
    feedPaused: `${prefix}feed:paused`,
    authEvents: `${prefix}auth:events`,
    replies: (node) => `${prefix}replies:${node}`,
    book: (marketId) => `${prefix}book:${marketId}`,
    eventChannel: (stream) => `${prefix}ev:${stream}`,
    eventLog: (stream) => `${prefix}evlog:${stream}`,
    siweNonce: (nonce) => `${prefix}auth:nonce:${nonce}`,
    session: (sessionId) => `${prefix}auth:session:${sessionId}`,
    revokedKey: (keyId) => `${prefix}auth:revoked:${keyId}`,
    orderRate: (userId) => `${prefix}rate:order:${userId}`,
  }
}
