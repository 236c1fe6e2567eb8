import { ProviderError } from '../../errors';
import { readErrorBody } from './error-body';
import { abortedError, parseRetryAfter, type AttemptResult } from './retry';
import { SseParser, type SseEvent } from './sse';

export interface StreamTimeouts {
  /** No byte for this long (waiting for headers included) aborts the attempt as stalled; it is retried. */
  stallTimeoutMs: number;
  /** One attempt taking longer than this in all is aborted and retried, however steadily bytes trickle. */
  requestTimeoutMs: number;
}

export const DEFAULT_STREAM_TIMEOUTS: StreamTimeouts = { stallTimeoutMs: 60_000, requestTimeoutMs: 600_000 };

export interface SseRequest {
  provider: string;
  url: string;
  headers: Record<string, string>;
  body: unknown;
  timeouts: StreamTimeouts;
  signal?: AbortSignal;
}

type AbortCause = 'caller' | 'stall' | 'timeout';

/**
 * POSTs `body` as JSON and feeds each SSE event of the response to `onEvent`. Never throws for
 * transport trouble: HTTP errors, network errors, stalls and timeouts come back as failures
 * marked retryable or not. A ProviderError thrown by `onEvent` (an `error` event mid-stream)
 * ends the request and comes back the same way.
 */
export async function postSse(req: SseRequest, onEvent: (event: SseEvent) => void): Promise<AttemptResult<void>> {
  if (req.signal?.aborted) return { ok: false, error: abortedError(req.provider, req.signal) };
  const controller = new AbortController();
  let handlerError: unknown;
  let cause: AbortCause | null = null;
  const abort = (why: AbortCause) => {
    cause ??= why;
    controller.abort();
  };
  const onCallerAbort = () => abort('caller');
  req.signal?.addEventListener('abort', onCallerAbort, { once: true });
  const overall = setTimeout(() => abort('timeout'), req.timeouts.requestTimeoutMs);
  const stall = setTimeout(() => abort('stall'), req.timeouts.stallTimeoutMs);
  try {
    const res = await fetch(req.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...req.headers },
      body: JSON.stringify(req.body),
      signal: controller.signal,
    });
    stall.refresh();
    if (!res.ok) {
      const body = readErrorBody(await res.text());
      const error = new ProviderError(req.provider, `HTTP ${res.status}: ${body.detail}`, res.status, {
        retryable: isRetryableStatus(res.status),
      });
      return { ok: false, error, retryAfterMs: parseRetryAfter(res.headers) ?? body.retryAfterMs };
    }
    if (!res.body) return { ok: false, error: new ProviderError(req.provider, 'response has no body', res.status, { retryable: true }) };
    const parser = new SseParser();
    const reader = res.body.getReader();
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      stall.refresh();
      for (const event of parser.push(chunk.value)) {
        try {
          onEvent(event);
        } catch (err) {
          handlerError = err;
          throw err;
        }
      }
    }
    return { ok: true, value: undefined };
  } catch (err) {
    if (err !== handlerError) return { ok: false, error: transportError(req, cause, err) };
    controller.abort();
    if (err instanceof ProviderError) return { ok: false, error: err };
    throw err;
  } finally {
    clearTimeout(overall);
    clearTimeout(stall);
    req.signal?.removeEventListener('abort', onCallerAbort);
  }
}

/** 429 and 5xx may pass on retry; any other status is the request's fault and will not. */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || status >= 500;
}

function transportError(req: SseRequest, cause: AbortCause | null, err: unknown): ProviderError {
  if (cause === 'caller') return abortedError(req.provider, req.signal);
  const retryable = { retryable: true, cause: err };
  if (cause === 'stall') {
    return new ProviderError(req.provider, `stream stalled: no data for ${req.timeouts.stallTimeoutMs} ms`, undefined, retryable);
  }
  if (cause === 'timeout') {
    return new ProviderError(req.provider, `request timed out after ${req.timeouts.requestTimeoutMs} ms`, undefined, retryable);
  }
  const code = (err as { cause?: { code?: string } }).cause?.code;
  const message = err instanceof Error ? err.message : String(err);
  return new ProviderError(req.provider, `network error: ${message}${code ? ` (${code})` : ''}`, undefined, retryable);
}
