import { ProviderError } from '../../errors';
import { toolCallCode } from './python-tool';
import type { SseEvent } from './sse';
import { parseStreamJson, type Draft, type WireStream } from './streaming-call';
import type { StopReason, TextDelta, Usage } from './types';

interface AnthropicUsage {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

interface StreamEvent {
  type: string;
  message?: { model?: string; usage?: AnthropicUsage };
  index?: number;
  content_block?: { type: string; id?: string; text?: string; input?: unknown };
  delta?: { type?: string; text?: string; partial_json?: string; stop_reason?: string | null };
  usage?: AnthropicUsage;
  error?: { type?: string; message?: string };
}

type Block = { kind: 'text'; text: string } | { kind: 'tool'; id: string; json: string; input: unknown } | { kind: 'other' };

const STOP: Record<string, StopReason> = { end_turn: 'end', stop_sequence: 'end', tool_use: 'tool_call', max_tokens: 'max_tokens', refusal: 'refusal' };

/** Overload and server trouble pass; a rejected request or key does not. */
const RETRYABLE_ERRORS = new Set(['overloaded_error', 'api_error', 'rate_limit_error', 'timeout_error']);

/** Folds Messages stream events into content blocks by index, plus usage and the stop reason. */
export class AnthropicStream implements WireStream {
  private readonly blocks: Block[] = [];
  private inputTokens = 0;
  private outputTokens = 0;
  private cacheReadTokens = 0;
  private cacheWriteTokens = 0;
  /** Whether message_start or message_delta carried any usage. */
  private usageSeen = false;
  private stopReason: string | null = null;
  private model?: string;
  private stopped = false;

  constructor(private readonly provider: string, private readonly onText?: TextDelta) {}

  onEvent(event: SseEvent): void {
    const data = parseStreamJson<StreamEvent>(this.provider, event.data);
    switch (data.type) {
      case 'message_start':
        this.model = data.message?.model;
        this.addUsage(data.message?.usage);
        break;
      case 'content_block_start':
        this.blocks[data.index ?? this.blocks.length] = toBlock(data.content_block);
        break;
      case 'content_block_delta':
        this.addDelta(this.blocks[data.index ?? this.blocks.length - 1], data.delta);
        break;
      case 'message_delta':
        this.stopReason = data.delta?.stop_reason ?? this.stopReason;
        this.addUsage(data.usage);
        break;
      case 'message_stop':
        this.stopped = true;
        break;
      case 'error': {
        const type = data.error?.type ?? 'error';
        const message = `stream error: ${type}: ${data.error?.message ?? 'unknown'}`;
        throw new ProviderError(this.provider, message, undefined, { retryable: RETRYABLE_ERRORS.has(type) });
      }
      // ping, content_block_stop and event types added later carry nothing we keep.
    }
  }

  finish(): Draft {
    if (!this.stopped && this.stopReason === null) {
      throw new ProviderError(this.provider, 'stream ended before message_stop', undefined, { retryable: true });
    }
    const blocks = this.blocks.filter((b) => b !== undefined);
    return {
      text: blocks.map((b) => (b.kind === 'text' ? b.text : '')).join(''),
      calls: blocks.flatMap((b) =>
        b.kind === 'tool' ? [{ id: b.id, ...toolCallCode(b.json || JSON.stringify(b.input ?? {})) }] : [],
      ),
      usage: this.usageSeen ? this.usage() : null,
      stopReason: STOP[this.stopReason ?? ''] ?? 'other',
      rawStopReason: this.stopReason,
      model: this.model,
    };
  }

  /**
   * message_start has the input count, message_delta the cumulative output count (and, on newer
   * API versions, the input count again). Cache reads and writes are input too: the budget counts them.
   */
  private addUsage(usage: AnthropicUsage | undefined): void {
    if (!usage) return;
    this.usageSeen = true;
    if (usage.cache_read_input_tokens != null) this.cacheReadTokens = usage.cache_read_input_tokens;
    if (usage.cache_creation_input_tokens != null) this.cacheWriteTokens = usage.cache_creation_input_tokens;
    if (usage.input_tokens != null) this.inputTokens = usage.input_tokens + this.cacheWriteTokens + this.cacheReadTokens;
    if (usage.output_tokens != null) this.outputTokens = usage.output_tokens;
  }

  private usage(): Usage {
    const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = this;
    return { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens };
  }

  private addDelta(block: Block | undefined, delta: StreamEvent['delta']): void {
    if (block?.kind === 'text' && delta?.type === 'text_delta' && delta.text) {
      block.text += delta.text;
      this.onText?.(delta.text);
    }
    if (block?.kind === 'tool' && delta?.type === 'input_json_delta') block.json += delta.partial_json ?? '';
  }

}

function toBlock(block: StreamEvent['content_block']): Block {
  if (block?.type === 'text') return { kind: 'text', text: block.text ?? '' };
  if (block?.type === 'tool_use') return { kind: 'tool', id: block.id ?? '', json: '', input: block.input };
  return { kind: 'other' };
}
