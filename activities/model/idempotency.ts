/**
 * Every model call's key: made from the session and the call's index, so it is the same on each
 * retry of the call (in the activity, by Temporal, after a durable throttle wait, on replay) and
 * distinct for every other call. A compaction summary is a call of its own, numbered apart.
 */
export function idempotencyKey(sessionId: string, call: { callIndex: number } | { compaction: number }): string {
  return 'callIndex' in call ? `recur:${sessionId}:call:${call.callIndex}` : `recur:${sessionId}:compaction:${call.compaction}`;
}

/**
 * The header that carries the key, for the providers that document taking a client's id for a
 * request: OpenAI's `X-Client-Request-Id` (its API reference, "Debugging requests"). No provider
 * Recur speaks documents deduplicating an inference call by a client key (docs/providers.md).
 */
export function keyHeader(provider: string, key: string | undefined): Record<string, string> {
  return key !== undefined && (provider === 'openai' || provider === 'openai-responses') ? { 'x-client-request-id': key } : {};
}
