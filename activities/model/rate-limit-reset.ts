/**
 * When a throttled provider says it will take calls again, read from whatever it sends:
 * `retry-after-ms` (OpenAI, Azure), `retry-after` as seconds or an HTTP date (every API that
 * throttles, Bedrock's ThrottlingException included), OpenAI's `x-ratelimit-reset-requests` /
 * `-tokens` durations ("6m0s", "20ms"), Anthropic's `anthropic-ratelimit-*-reset` instants
 * (RFC 3339), and Google's RetryInfo (in the body: error-body.ts). A server that names both a
 * wait and a reset is read by the wait: it is what the server asks of this very call.
 */

/** `retry-after-ms`, else `retry-after` as seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(headers: Headers, now = Date.now()): number | undefined {
  const ms = Number(headers.get('retry-after-ms') ?? NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers.get('retry-after');
  if (value === null || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** A Go-style duration as OpenAI sends it (`1s`, `6m0s`, `20ms`, `1h2m3.5s`); undefined when unreadable. */
export function parseGoDuration(value: string): number | undefined {
  const text = value.trim();
  if (!/^(\d+(\.\d+)?(h|ms|m|s|us|µs|ns))+$/.test(text)) return undefined;
  const unit: Record<string, number> = { h: 3_600_000, m: 60_000, s: 1000, ms: 1, us: 1e-3, 'µs': 1e-3, ns: 1e-6 };
  let total = 0;
  for (const [, n, , u] of text.matchAll(/(\d+(\.\d+)?)(h|ms|m|s|us|µs|ns)/g)) total += Number(n) * unit[u];
  return Math.ceil(total);
}

/**
 * The longest of the rate-limit reset headers: a call needs every exhausted limit back, and a
 * limit with room left resets sooner or does not matter. Undefined when none is sent.
 */
function resetHeadersMs(headers: Headers, now: number): number | undefined {
  const waits: number[] = [];
  for (const name of ['x-ratelimit-reset-requests', 'x-ratelimit-reset-tokens']) {
    const value = headers.get(name);
    const ms = value === null ? undefined : parseGoDuration(value);
    if (ms !== undefined) waits.push(ms);
  }
  for (const name of ['anthropic-ratelimit-requests-reset', 'anthropic-ratelimit-tokens-reset',
    'anthropic-ratelimit-input-tokens-reset', 'anthropic-ratelimit-output-tokens-reset']) {
    const at = Date.parse(headers.get(name) ?? '');
    if (!Number.isNaN(at)) waits.push(Math.max(0, at - now));
  }
  return waits.length > 0 ? Math.max(...waits) : undefined;
}

/**
 * The wait an error reply asks for, in ms; undefined when it names none (backoff then decides).
 * The reset headers count only on a throttle: every reply carries them, and a 500 is not about a limit.
 */
export function throttleWaitMs(headers: Headers, bodyRetryMs: number | undefined, throttled: boolean, now = Date.now()): number | undefined {
  return parseRetryAfter(headers, now) ?? bodyRetryMs ?? (throttled ? resetHeadersMs(headers, now) : undefined);
}

/** 429, and Anthropic's 529 `overloaded_error`: the provider is refusing for load, not for the request. */
export function isThrottleStatus(status: number): boolean {
  return status === 429 || status === 529;
}
