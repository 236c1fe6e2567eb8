import { ProviderError } from '../../errors';
import type { AwsEvent } from './event-stream';
import { toolCallCode } from './python-tool';
import { parseStreamJson, type Draft, type WireStream } from './streaming-call';
import type { StopReason, TextDelta, Usage } from './types';

interface ConverseEvent {
  contentBlockIndex?: number;
  start?: { toolUse?: { toolUseId?: string; name?: string } };
  delta?: { text?: string; toolUse?: { input?: string } };
  stopReason?: string;
  usage?: { inputTokens?: number; outputTokens?: number; cacheReadInputTokens?: number | null; cacheWriteInputTokens?: number | null };
  message?: string;
}

type Block = { kind: 'text'; text: string } | { kind: 'tool'; id: string; input: string };

const STOP: Record<string, StopReason> = { end_turn: 'end', stop_sequence: 'end', tool_use: 'tool_call', max_tokens: 'max_tokens' };

/** Throttling and server trouble pass on retry; a rejected request does not. */
const RETRYABLE_EXCEPTIONS = new Set([
  'throttlingException', 'internalServerException', 'serviceUnavailableException', 'modelStreamErrorException',
]);

/**
 * Folds ConverseStream events (messageStart, contentBlockStart/Delta/Stop, messageStop, metadata)
 * into content blocks by index, plus usage and the stop reason. Text blocks have no start event:
 * their first delta opens them. Exceptions arrive as frames of their own.
 */
export class BedrockStream implements WireStream<AwsEvent> {
  private readonly blocks: Block[] = [];
  private usage: Usage | null = null;
  private stopReason: string | null = null;

  constructor(private readonly provider: string, private readonly onText?: TextDelta) {}

  onEvent(event: AwsEvent): void {
    const kind = event.headers[':message-type'];
    if (kind === 'exception') {
      const type = event.headers[':exception-type'] ?? 'exception';
      const message = `stream error: ${type}: ${parseStreamJson<ConverseEvent>(this.provider, event.body).message ?? event.body.slice(0, 200)}`;
      throw new ProviderError(this.provider, message, undefined, { retryable: RETRYABLE_EXCEPTIONS.has(type) });
    }
    if (kind === 'error') {
      const message = `stream error: ${event.headers[':error-code'] ?? 'error'}: ${event.headers[':error-message'] ?? 'unknown'}`;
      throw new ProviderError(this.provider, message, undefined, { retryable: true });
    }
    const data = parseStreamJson<ConverseEvent>(this.provider, event.body);
    switch (event.headers[':event-type']) {
      case 'contentBlockStart':
        if (data.start?.toolUse) this.blocks[data.contentBlockIndex ?? this.blocks.length] = { kind: 'tool', id: data.start.toolUse.toolUseId ?? '', input: '' };
        break;
      case 'contentBlockDelta':
        this.addDelta(data.contentBlockIndex ?? this.blocks.length - 1, data.delta);
        break;
      case 'messageStop':
        this.stopReason = data.stopReason ?? 'unknown';
        break;
      case 'metadata':
        if (data.usage) this.usage = toUsage(data.usage);
        break;
      // messageStart, contentBlockStop and event types added later carry nothing we keep.
    }
  }

  finish(): Draft {
    if (this.stopReason === null) {
      throw new ProviderError(this.provider, 'stream ended before messageStop', undefined, { retryable: true });
    }
    const blocks = this.blocks.filter((b) => b !== undefined);
    return {
      text: blocks.map((b) => (b.kind === 'text' ? b.text : '')).join(''),
      calls: blocks.flatMap((b) => (b.kind === 'tool' ? [{ id: b.id, ...toolCallCode(b.input || '{}') }] : [])),
      usage: this.usage,
      stopReason: STOP[this.stopReason] ?? 'other',
      rawStopReason: this.stopReason,
    };
  }

  private addDelta(index: number, delta: ConverseEvent['delta']): void {
    if (delta?.text !== undefined) {
      const block = (this.blocks[index] ??= { kind: 'text', text: '' });
      if (block.kind === 'text') {
        block.text += delta.text;
        this.onText?.(delta.text);
      }
    }
    const block = this.blocks[index];
    if (delta?.toolUse && block?.kind === 'tool') block.input += delta.toolUse.input ?? '';
  }

}

/** Bedrock's inputTokens leaves out cache reads and writes; the neutral count includes them, as the budget does. */
function toUsage(u: NonNullable<ConverseEvent['usage']>): Usage {
  const cacheReadTokens = u.cacheReadInputTokens ?? 0;
  const cacheWriteTokens = u.cacheWriteInputTokens ?? 0;
  return { inputTokens: (u.inputTokens ?? 0) + cacheReadTokens + cacheWriteTokens, outputTokens: u.outputTokens ?? 0, cacheReadTokens, cacheWriteTokens };
}
