/**
 * A session's message allowance: a token bucket on workflow time, so a replay or a continued
 * run sees the same allowance. It refills `perMinute` tokens a minute up to `burst`. Pure.
 */
export interface RateBucket {
  tokens: number;
  /** Workflow time of the last refill. */
  at: number;
}

export interface RateLimit {
  perMinute: number;
  burst: number;
}

/** The bucket refilled to `now`. */
export function refill(b: RateBucket | null, limit: RateLimit, now: number): RateBucket {
  if (!b) return { tokens: limit.burst, at: now };
  const tokens = Math.min(limit.burst, b.tokens + ((now - b.at) * limit.perMinute) / 60_000);
  return { tokens, at: now };
}

/** Why a message is refused now, or null with the bucket it leaves (one token spent). */
export function spendMessage(b: RateBucket | null, limit: RateLimit, now: number): { refused: string } | { bucket: RateBucket } {
  const full = refill(b, limit, now);
  if (full.tokens >= 1) return { bucket: { tokens: full.tokens - 1, at: now } };
  const waitS = Math.ceil(((1 - full.tokens) * 60) / limit.perMinute);
  return {
    refused: `message rate limit: at most ${limit.perMinute} messages a minute (bursts of ${limit.burst}); `
      + `try again in ${waitS} s (RECUR_MESSAGES_PER_MINUTE, RECUR_MESSAGE_BURST)`,
  };
}
