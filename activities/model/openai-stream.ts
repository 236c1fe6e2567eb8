import { ProviderError } from '../../errors';
import { toolCallCode } from './python-tool';
import type { SseEvent } from './sse';
import { parseStreamJson, type Draft, type WireStream } from './streaming-call';
import type { StopReason, TextDelta, Usage } from './types';

interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string | object };
}

interface OpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  /** OpenAI's automatic prompt cache: `cached_tokens` are part of `prompt_tokens`. */
  prompt_tokens_details?: { cached_tokens?: number | null } | null;
}

interface Chunk {
  model?: string;
  // vLLM sends `choices: null` on the usage-only chunk.
  // `refusal`: OpenAI's structured refusal, sent instead of content.
  choices?: { delta?: { content?: string | null; refusal?: string | null; tool_calls?: ToolCallDelta[] }; finish_reason?: string | null }[] | null;
  usage?: OpenAIUsage | null;
  // Groq has reported usage here instead of `usage`.
  x_groq?: { usage?: OpenAIUsage };
  // Azure names the error in `code`, often with `type: null`.
  error?: { message?: string; type?: string | null; code?: string | null } | string;
}

const STOP: Record<string, StopReason> = { stop: 'end', tool_calls: 'tool_call', function_call: 'tool_call', length: 'max_tokens' };

/** Folds `chat.completion.chunk` events: text deltas, tool-call deltas by index, usage from the last chunk. */
export class OpenAIStream implements WireStream {
  private text = '';
  private refusal = '';
  private readonly calls: { id: string; args: string }[] = [];
  private finishReason: string | null = null;
  private usage: Usage | null = null;
  private model?: string;
  private done = false;

  constructor(private readonly provider: string, private readonly onText?: TextDelta) {}

  onEvent(event: SseEvent): void {
    if (event.data === '[DONE]') {
      this.done = true;
      return;
    }
    const chunk = parseStreamJson<Chunk>(this.provider, event.data);
    if (chunk.error) throw this.streamError(chunk.error);
    // Azure's first chunk (prompt filter results) has `model: ""`.
    this.model = chunk.model || this.model;
    const usage = chunk.usage ?? chunk.x_groq?.usage;
    if (usage) this.usage = toUsage(usage);
    const choice = chunk.choices?.[0];
    if (!choice) return;
    const piece = choice.delta?.content ?? '';
    this.text += piece;
    if (piece) this.onText?.(piece);
    this.refusal += choice.delta?.refusal ?? '';
    for (const delta of choice.delta?.tool_calls ?? []) this.addToolCallDelta(delta);
    this.finishReason = choice.finish_reason ?? this.finishReason;
  }

  finish(): Draft {
    if (!this.done && this.finishReason === null) {
      throw new ProviderError(this.provider, 'stream ended before the completion finished', undefined, { retryable: true });
    }
    return {
      text: this.text + this.refusal,
      calls: this.calls.map((c) => ({ id: c.id, ...toolCallCode(c.args) })),
      usage: this.usage,
      stopReason: this.refusal ? 'refusal' : STOP[this.finishReason ?? ''] ?? 'other',
      rawStopReason: this.finishReason,
      model: this.model,
    };
  }

  /** The first delta of a call has its id and name; the rest carry argument pieces under the same index. */
  private addToolCallDelta(delta: ToolCallDelta): void {
    // Some servers omit `index` and send whole calls: a new id starts a new call.
    const fresh = delta.id !== undefined && !this.calls.some((c) => c.id === delta.id);
    const index = delta.index ?? (fresh ? this.calls.length : Math.max(0, this.calls.length - 1));
    const call = (this.calls[index] ??= { id: delta.id ?? `call_${index}`, args: '' });
    if (delta.id) call.id = delta.id;
    const args = delta.function?.arguments;
    if (args !== undefined) call.args += typeof args === 'string' ? args : JSON.stringify(args);
  }


  /** An error after a 200 is the server failing mid-answer; only a rejected request is worth not retrying. */
  private streamError(error: NonNullable<Chunk['error']>): ProviderError {
    const e = typeof error === 'string' ? { message: error } : error;
    const kind = e.type ?? e.code;
    const retryable = kind !== 'invalid_request_error' && kind !== 'content_filter';
    return new ProviderError(this.provider, `stream error: ${kind ? `${kind}: ` : ''}${e.message ?? 'unknown'}`, undefined, {
      retryable,
    });
  }
}

function toUsage(u: OpenAIUsage): Usage {
  const cached = u.prompt_tokens_details?.cached_tokens;
  return { inputTokens: u.prompt_tokens ?? 0, outputTokens: u.completion_tokens ?? 0, ...(cached != null && { cacheReadTokens: cached }) };
}
