import { ProviderError } from '../../errors';
import { readErrorBody } from './error-body';
import { isThrottleStatus, throttleWaitMs } from './rate-limit-reset';
import { abortedError, type AttemptResult } from './retry';

export interface StreamTimeouts {
  /** No byte for this long (waiting for headers included) aborts the attempt as stalled; it is retried. */
  stallTimeoutMs: number;
  /** One attempt taking longer than this in all is aborted and retried, however steadily bytes trickle. */
  requestTimeoutMs: number;
}

export const DEFAULT_STREAM_TIMEOUTS: StreamTimeouts = { stallTimeoutMs: 60_000, requestTimeoutMs: 600_000 };

export interface StreamRequest {
  provider: string;
  url: string;
  /** Sent as they are: the caller sets content-type and accept, so a signature can cover them. */
  headers: Record<string, string>;
  /** The JSON body, serialised once, so a signed attempt sends exactly the bytes it signed. */
  body: string;
  timeouts: StreamTimeouts;
  signal?: AbortSignal;
}

/**
 * How a response body splits into events: SSE for most APIs, AWS event-stream frames for
 * Bedrock. `frames` pulls from `chunks` as it needs them, so the stall timer sees every read.
 */
export interface Framing<E> {
  accept: string;
  frames(chunks: AsyncIterable<Uint8Array>): AsyncIterable<E>;
}

type AbortCause = 'caller' | 'stall' | 'timeout';

/**
 * POSTs `body` and feeds each event of the response, as `framing` splits it, to `onEvent`. Never
 * throws for transport trouble: HTTP errors, network errors, undecodable frames, stalls and
 * timeouts come back as failures marked retryable or not. A ProviderError thrown by `onEvent`
 * (an `error` event mid-stream) ends the request and comes back the same way.
 */
export async function postStream<E>(req: StreamRequest, framing: Framing<E>, onEvent: (event: E) => void): Promise<AttemptResult<void>> {
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
    const res = await fetch(req.url, { method: 'POST', headers: req.headers, body: req.body, signal: controller.signal });
    stall.refresh();
    if (!res.ok) {
      const body = readErrorBody(await res.text());
      // AWS names the error's type in a header (`ThrottlingException:http://…`), not in the body.
      const awsType = res.headers.get('x-amzn-errortype')?.split(':')[0];
      const error = new ProviderError(req.provider, `HTTP ${res.status}: ${awsType ? `${awsType}: ` : ''}${body.detail}`, res.status, {
        retryable: isRetryableStatus(res.status),
      });
      return { ok: false, error, retryAfterMs: throttleWaitMs(res.headers, body.retryAfterMs, isThrottleStatus(res.status)) };
    }
    if (!res.body) return { ok: false, error: new ProviderError(req.provider, 'response has no body', res.status, { retryable: true }) };
    const reader = res.body.getReader();
    async function* chunks(): AsyncIterable<Uint8Array> {
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        stall.refresh();
        yield chunk.value;
      }
    }
    for await (const event of framing.frames(chunks())) {
      try {
        onEvent(event);
      } catch (err) {
        handlerError = err;
        throw err;
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

function transportError(req: StreamRequest, cause: AbortCause | null, err: unknown): ProviderError {
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
