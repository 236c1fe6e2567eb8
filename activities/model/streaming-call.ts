import { ProviderError } from '../../errors';
import { estimateUsage } from './estimate-usage';
import { extractFencedPython } from './extract-code';
import { costUsd, LIST_PRICES, type PriceTable } from './pricing';
import { DEFAULT_RETRY_POLICY, withRetry, type RetryInfo, type RetryPolicy } from './retry';
import { SSE_FRAMING, type SseEvent } from './sse';
import { DEFAULT_STREAM_TIMEOUTS, postStream, type Framing, type StreamTimeouts } from './stream';
import type { ModelRequest, ModelResponse, StopReason, TextDelta, Usage } from './types';

/** Knobs every HTTP provider shares; anything left out takes the defaults. */
export interface ProviderOptions {
  retry?: Partial<RetryPolicy>;
  timeouts?: Partial<StreamTimeouts>;
  /** Merged over LIST_PRICES, so an entry replaces or adds one model's price. */
  pricing?: PriceTable;
  /** Told before each backoff sleep: for logs and metrics. */
  onRetry?: (info: RetryInfo) => void;
}

/** What a wire format makes of one complete stream, before code extraction and pricing. */
export interface Draft {
  text: string;
  /** Native `python` calls in order; their code runs as one cell, unless one could not be read (`error`). */
  calls: ({ id: string; code: string } | { id: string; error: string })[];
  /** What the provider reported; null when the stream carried no usage at all. */
  usage: Usage | null;
  stopReason: StopReason;
  rawStopReason: string | null;
  /** The model the server says answered (may carry a snapshot date). */
  model?: string;
}

/** Folds one attempt's events (SSE unless the call says otherwise); a fresh one per attempt, so a retried stream starts clean. */
export interface WireStream<E = SseEvent> {
  onEvent(event: E): void;
  /** The draft, or a retryable ProviderError if the stream ended before the API said it was done. */
  finish(): Draft;
}

export interface WireCall<E = SseEvent> {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /**
   * A fold for one attempt. A fold that streams text passes each text piece to `onText` as it
   * folds it (one line: `this.onText?.(piece)`); a fold that ignores it still works, unstreamed.
   */
  newStream(onText?: TextDelta): WireStream<E>;
  /** How the response splits into events; SSE when left out. */
  framing?: Framing<E>;
  /** Turns each attempt's headers into signed ones (AWS SigV4), so a retry is signed afresh. */
  sign?: (request: { url: string; headers: Record<string, string>; body: string }) => Promise<Record<string, string>>;
  /** The provider whose list prices apply, when another API bills the same models (the Responses API: `openai`). */
  pricedAs?: string;
}

/** One streamed event's JSON. An unreadable one is the server failing mid-answer: retried. */
export function parseStreamJson<T>(provider: string, data: string): T {
  try {
    return JSON.parse(data) as T;
  } catch {
    throw new ProviderError(provider, `unreadable stream event: ${data.slice(0, 200)}`, undefined, { retryable: true });
  }
}

/** Runs one streamed call with retries and turns the draft into the neutral response. */
export async function streamingCall<E = SseEvent>(
  provider: string,
  options: ProviderOptions,
  request: ModelRequest,
  wire: WireCall<E>,
): Promise<ModelResponse> {
  const started = Date.now();
  const timeouts = { ...DEFAULT_STREAM_TIMEOUTS, ...options.timeouts };
  // Only an SSE call leaves framing out.
  const framing = wire.framing ?? (SSE_FRAMING as unknown as Framing<E>);
  const body = JSON.stringify(wire.body);
  const headers = { 'content-type': 'application/json', accept: framing.accept, ...wire.headers };
  const { value: draft, attempts } = await withRetry(
    async () => {
      const stream = wire.newStream(request.onTextDelta);
      const signed = wire.sign ? await wire.sign({ url: wire.url, headers, body }) : headers;
      const req = { provider, url: wire.url, headers: signed, body, timeouts, signal: request.signal };
      const result = await postStream(req, framing, (event) => stream.onEvent(event));
      return result.ok ? { ok: true, value: stream.finish() } : result;
    },
    { provider, policy: { ...DEFAULT_RETRY_POLICY, ...options.retry }, signal: request.signal, onRetry: options.onRetry },
  );
  return responseFromDraft(provider, request, draft, { pricing: options.pricing, pricedAs: wire.pricedAs, latencyMs: Date.now() - started, attempts });
}

/** The neutral response for a folded stream: pure, so every wire's fixtures can be run through it. */
export function responseFromDraft(
  provider: string, request: Pick<ModelRequest, 'model' | 'system' | 'messages'>, draft: Draft,
  call: { pricing?: PriceTable; pricedAs?: string; latencyMs: number; attempts: number },
): ModelResponse {
  const native = draft.calls.length > 0;
  const codes = draft.calls.flatMap((c) => ('code' in c ? [c.code] : []));
  const errors = draft.calls.flatMap((c) => ('error' in c ? [c.error] : []));
  const pricing = { ...LIST_PRICES, ...call.pricing };
  const priced = call.pricedAs ?? provider;
  const usage = draft.usage ?? estimateUsage(request, draft.text + codes.join(''));
  return {
    text: draft.text,
    // One unreadable call runs none of them: the model is told why and sends them again.
    code: !native ? extractFencedPython(draft.text) : errors.length > 0 ? null : codes.join('\n\n'),
    ...(native && errors.length === 0 && { toolCallId: draft.calls[0].id }),
    ...(errors.length > 0 && { toolCallErrors: errors }),
    usage,
    usageReported: draft.usage !== null,
    costUsd: costUsd(priced, request.model, usage, pricing) || costUsd(priced, draft.model ?? '', usage, pricing),
    latencyMs: call.latencyMs,
    attempts: call.attempts,
    model: draft.model ?? request.model,
    provider,
    // Some OpenAI-compatible servers (Ollama) report `stop` even when they called a tool.
    stopReason: native ? 'tool_call' : draft.stopReason,
    rawStopReason: draft.rawStopReason,
  };
}
