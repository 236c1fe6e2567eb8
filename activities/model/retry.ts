import { setTimeout as sleep } from 'node:timers/promises';
import { ProviderError, ThrottledError } from '../../errors';
import { isThrottleStatus } from './rate-limit-reset';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** First backoff; doubles per attempt, with jitter, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
  /**
   * A throttle's wait up to this is slept in the activity; a longer one, or a throttle still there
   * after the last attempt, ends the call with a ThrottledError for the workflow to wait out durably.
   */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
};

/** How one attempt ended; a failure may carry the wait the server asked for. */
export type AttemptResult<T> =
  | { ok: true; value: T }
  | { ok: false; error: ProviderError; retryAfterMs?: number };

export interface RetryInfo {
  /** The attempt that failed (1-based). */
  attempt: number;
  delayMs: number;
  error: ProviderError;
}

/** Wait before the attempt after `attempt` (1-based): the server's word if any, else jittered backoff. */
export function retryDelayMs(
  attempt: number,
  retryAfterMs: number | undefined,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.min(Math.max(0, retryAfterMs), policy.maxRetryAfterMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  // Half fixed, half random: spreads a burst of 429s without ever retrying immediately.
  return Math.round(ceiling * (0.5 + random() / 2));
}

/**
 * Runs `attempt` until it succeeds, fails with a non-retryable error, or `maxAttempts` is used
 * up; then the last error is thrown. A thrown ProviderError counts as a failed attempt; any
 * other throw is a bug and passes straight through.
 */
export async function withRetry<T>(
  attempt: (n: number) => Promise<AttemptResult<T>>,
  opts: { provider: string; policy: RetryPolicy; signal?: AbortSignal; onRetry?: (info: RetryInfo) => void },
): Promise<{ value: T; attempts: number }> {
  for (let n = 1; ; n++) {
    const result = await attempt(n).catch((error: unknown): AttemptResult<T> => {
      if (error instanceof ProviderError) return { ok: false, error };
      throw error;
    });
    if (result.ok) return { value: result.value, attempts: n };
    if (opts.signal?.aborted) throw abortedError(opts.provider, opts.signal);
    const throttled = throttledFor(result, n, opts.policy);
    if (throttled) throw throttled;
    if (!result.error.retryable || n >= opts.policy.maxAttempts) throw result.error;
    const delayMs = retryDelayMs(n, result.retryAfterMs, opts.policy);
    opts.onRetry?.({ attempt: n, delayMs, error: result.error });
    try {
      await sleep(delayMs, undefined, { signal: opts.signal });
    } catch {
      throw abortedError(opts.provider, opts.signal);
    }
  }
}

/**
 * A throttle the activity should not sleep through: its wait is past the policy's ceiling, or no
 * attempt is left. Without a wait named, the backoff ceiling stands in for one.
 */
function throttledFor(result: { error: ProviderError; retryAfterMs?: number }, attempt: number, policy: RetryPolicy): ThrottledError | null {
  const { error, retryAfterMs } = result;
  if (error.status === undefined || !isThrottleStatus(error.status)) return null;
  const tooLong = retryAfterMs !== undefined && retryAfterMs > policy.maxRetryAfterMs;
  if (!tooLong && attempt < policy.maxAttempts) return null;
  const reason = error.message.slice(error.provider.length + 2);
  return new ThrottledError({ provider: error.provider, status: error.status, reason, resetAtMs: Date.now() + (retryAfterMs ?? policy.maxDelayMs) });
}

/** The caller gave up (activity cancelled): not retryable, since the caller no longer wants the answer. */
export function abortedError(provider: string, signal?: AbortSignal): ProviderError {
  return new ProviderError(provider, 'request aborted by caller', undefined, { cause: signal?.reason });
}
