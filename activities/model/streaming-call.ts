import { estimateUsage } from './estimate-usage';
import { extractFencedPython } from './extract-code';
import { costUsd, LIST_PRICES, type PriceTable } from './pricing';
import { DEFAULT_RETRY_POLICY, withRetry, type RetryInfo, type RetryPolicy } from './retry';
import type { SseEvent } from './sse';
import { DEFAULT_STREAM_TIMEOUTS, postSse, type StreamTimeouts } from './stream';
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
  /** Native `python` calls in order; their code runs as one cell. */
  calls: { id: string; code: string }[];
  /** What the provider reported; null when the stream carried no usage at all. */
  usage: Usage | null;
  stopReason: StopReason;
  rawStopReason: string | null;
  /** The model the server says answered (may carry a snapshot date). */
  model?: string;
}

/** Folds one attempt's SSE events; a fresh one per attempt, so a retried stream starts clean. */
export interface WireStream {
  onEvent(event: SseEvent): void;
  /** The draft, or a retryable ProviderError if the stream ended before the API said it was done. */
  finish(): Draft;
}

export interface WireCall {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /**
   * A fold for one attempt. A fold that streams text passes each text piece to `onText` as it
   * folds it (one line: `this.onText?.(piece)`); a fold that ignores it still works, unstreamed.
   */
  newStream(onText?: TextDelta): WireStream;
}

/** Runs one streamed call with retries and turns the draft into the neutral response. */
export async function streamingCall(
  provider: string,
  options: ProviderOptions,
  request: ModelRequest,
  wire: WireCall,
): Promise<ModelResponse> {
  const started = Date.now();
  const timeouts = { ...DEFAULT_STREAM_TIMEOUTS, ...options.timeouts };
  const { value: draft, attempts } = await withRetry(
    async () => {
      const stream = wire.newStream(request.onTextDelta);
      const sse = { provider, url: wire.url, headers: wire.headers, body: wire.body, timeouts, signal: request.signal };
      const result = await postSse(sse, (event) => stream.onEvent(event));
      return result.ok ? { ok: true, value: stream.finish() } : result;
    },
    { provider, policy: { ...DEFAULT_RETRY_POLICY, ...options.retry }, signal: request.signal, onRetry: options.onRetry },
  );
  const native = draft.calls.length > 0;
  const pricing = { ...LIST_PRICES, ...options.pricing };
  const usage = draft.usage ?? estimateUsage(request, draft.text + draft.calls.map((c) => c.code).join(''));
  return {
    text: draft.text,
    code: native ? draft.calls.map((c) => c.code).join('\n\n') : extractFencedPython(draft.text),
    ...(native && { toolCallId: draft.calls[0].id }),
    usage,
    usageReported: draft.usage !== null,
    costUsd: costUsd(provider, request.model, usage, pricing) || costUsd(provider, draft.model ?? '', usage, pricing),
    latencyMs: Date.now() - started,
    attempts,
    model: draft.model ?? request.model,
    provider,
    // Some OpenAI-compatible servers (Ollama) report `stop` even when they called a tool.
    stopReason: native ? 'tool_call' : draft.stopReason,
    rawStopReason: draft.rawStopReason,
  };
}
