import { ProviderError } from '../../errors';
import { toolCallCode } from './python-tool';
import type { SseEvent } from './sse';
import type { Draft, WireStream } from './streaming-call';
import type { StopReason, Usage } from './types';

interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string | object };
}

interface OpenAIUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
}

interface Chunk {
  model?: string;
  // vLLM sends `choices: null` on the usage-only chunk.
  // `refusal`: OpenAI's structured refusal, sent instead of content.
  choices?: { delta?: { content?: string | null; refusal?: string | null; tool_calls?: ToolCallDelta[] }; finish_reason?: string | null }[] | null;
  usage?: OpenAIUsage | null;
  // Groq has reported usage here instead of `usage`.
  x_groq?: { usage?: OpenAIUsage };
  error?: { message?: string; type?: string } | string;
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

  constructor(private readonly provider: string) {}

  onEvent(event: SseEvent): void {
    if (event.data === '[DONE]') {
      this.done = true;
      return;
    }
    const chunk = this.parse(event.data);
    if (chunk.error) throw this.streamError(chunk.error);
    this.model = chunk.model ?? this.model;
    const usage = chunk.usage ?? chunk.x_groq?.usage;
    if (usage) this.usage = { inputTokens: usage.prompt_tokens ?? 0, outputTokens: usage.completion_tokens ?? 0 };
    const choice = chunk.choices?.[0];
    if (!choice) return;
    this.text += choice.delta?.content ?? '';
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

  private parse(data: string): Chunk {
    try {
      return JSON.parse(data) as Chunk;
    } catch {
      throw new ProviderError(this.provider, `unreadable stream chunk: ${data.slice(0, 200)}`, undefined, { retryable: true });
    }
  }

  /** An error after a 200 is the server failing mid-answer; only a rejected request is worth not retrying. */
  private streamError(error: NonNullable<Chunk['error']>): ProviderError {
    const e = typeof error === 'string' ? { message: error } : error;
    const retryable = e.type !== 'invalid_request_error';
    return new ProviderError(this.provider, `stream error: ${e.type ? `${e.type}: ` : ''}${e.message ?? 'unknown'}`, undefined, {
      retryable,
    });
  }
}
