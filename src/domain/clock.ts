// Wall-clock time for everything outside the engine (the engine's time is its commands' timestamps).
// One clock is injected at the composition root, so a test runs a whole exchange at an instant it
// chooses (an expiry day, a roll window, another year) and every component agrees on "now".

/** Unix milliseconds now. */
export type Clock = () => number

export const systemClock: Clock = () => Date.now()
