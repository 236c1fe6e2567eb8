import { ProviderError } from '../../errors';
import { toolCallCode } from './python-tool';
import type { SseEvent } from './sse';
import { parseStreamJson, type Draft, type WireStream } from './streaming-call';
import type { StopReason, TextDelta, Usage } from './types';

interface Item {
  type?: string;
  call_id?: string;
  arguments?: string;
}

interface Response {
  model?: string;
  status?: string;
  incomplete_details?: { reason?: string } | null;
  error?: { code?: string; message?: string } | null;
  /** input_tokens includes input_tokens_details.cached_tokens, output_tokens the reasoning tokens. */
  usage?: { input_tokens?: number; output_tokens?: number; input_tokens_details?: { cached_tokens?: number | null } | null } | null;
}

interface StreamEvent {
  type: string;
  output_index?: number;
  item?: Item;
  delta?: string;
  arguments?: string;
  response?: Response;
  code?: string | null;
  message?: string;
  /** Some servers nest the `error` event's fields. */
  error?: { type?: string; code?: string | null; message?: string };
}

const INCOMPLETE: Record<string, StopReason> = { max_output_tokens: 'max_tokens' };

/** A failed response worth asking again; others (`invalid_prompt`, …) will fail the same way. */
const RETRYABLE_CODES = new Set(['server_error', 'rate_limit_exceeded']);

/**
 * Folds Responses stream events: text deltas, function_call items by output index (their
 * arguments streamed, then given whole by `.done`, which wins), and the final response with
 * its usage. The stream ends with response.completed or response.incomplete; no [DONE].
 */
export class ResponsesStream implements WireStream {
  private text = '';
  private readonly calls: { id: string; args: string }[] = [];
  private stop: string | null = null;
  private incomplete = false;
  private usage: Usage | null = null;
  private model?: string;

  constructor(private readonly provider: string, private readonly onText?: TextDelta) {}

  onEvent(event: SseEvent): void {
    const data = parseStreamJson<StreamEvent>(this.provider, event.data);
    switch (data.type) {
      case 'response.created':
        this.model = data.response?.model ?? this.model;
        break;
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        this.text += data.delta ?? '';
        if (data.delta) this.onText?.(data.delta);
        break;
      case 'response.output_item.added':
      case 'response.output_item.done':
        if (data.item?.type === 'function_call') this.setCall(data.output_index, data.item.call_id, data.item.arguments);
        break;
      case 'response.function_call_arguments.delta':
        this.call(data.output_index).args += data.delta ?? '';
        break;
      case 'response.function_call_arguments.done':
        this.setCall(data.output_index, undefined, data.arguments);
        break;
      case 'response.completed':
      case 'response.incomplete':
        this.end(data.response);
        break;
      case 'response.failed': {
        const e = data.response?.error;
        const code = e?.code ?? 'failed';
        throw this.failure(code, e?.message, RETRYABLE_CODES.has(code));
      }
      case 'error': {
        const e = data.error ?? data;
        const code = e.code ?? data.error?.type ?? 'error';
        // As with Chat Completions: an error after a 200 is the server failing, unless it says the request was bad.
        throw this.failure(code, e.message, !/invalid/.test(code));
      }
      // created/in_progress, content parts, reasoning and events added later carry nothing we keep.
    }
  }

  finish(): Draft {
    if (this.stop === null) throw new ProviderError(this.provider, 'stream ended before response.completed', undefined, { retryable: true });
    return {
      text: this.text,
      calls: this.calls.filter((c) => c !== undefined).map((c) => ({ id: c.id, ...toolCallCode(c.args) })),
      usage: this.usage,
      stopReason: this.incomplete ? (INCOMPLETE[this.stop] ?? 'other') : 'end',
      rawStopReason: this.stop,
      model: this.model,
    };
  }

  private end(response: Response | undefined): void {
    this.model = response?.model ?? this.model;
    this.incomplete = response?.status === 'incomplete';
    this.stop = this.incomplete ? (response?.incomplete_details?.reason ?? 'incomplete') : (response?.status ?? 'completed');
    const usage = response?.usage;
    if (!usage) return;
    const cached = usage.input_tokens_details?.cached_tokens;
    this.usage = { inputTokens: usage.input_tokens ?? 0, outputTokens: usage.output_tokens ?? 0, ...(cached != null && { cacheReadTokens: cached }) };
  }

  private call(index: number | undefined): { id: string; args: string } {
    const at = index ?? Math.max(0, this.calls.length - 1);
    return (this.calls[at] ??= { id: `call_${at}`, args: '' });
  }

  private setCall(index: number | undefined, id: string | undefined, args: string | undefined): void {
    const call = this.call(index);
    if (id) call.id = id;
    if (args) call.args = args;
  }

  private failure(code: string, message: string | undefined, retryable: boolean): ProviderError {
    return new ProviderError(this.provider, `stream error: ${code}: ${message ?? 'unknown'}`, undefined, { retryable });
  }

}
