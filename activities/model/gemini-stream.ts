import { createHash } from 'node:crypto';
import { ProviderError } from '../../errors';
import { toolCallCode } from './python-tool';
import type { SseEvent } from './sse';
import { parseStreamJson, type Draft, type WireStream } from './streaming-call';
import type { StopReason, TextDelta, Usage } from './types';

interface Part {
  text?: string;
  /** A thought summary, not answer text. */
  thought?: boolean;
  functionCall?: { id?: string; name?: string; args?: unknown };
}

interface GeminiUsage {
  /** Includes cachedContentTokenCount: cached input is input, for the budget as for the bill's token count. */
  promptTokenCount?: number;
  /** Read from an explicit or implicit context cache: priced by the table's cache-read multiplier. */
  cachedContentTokenCount?: number;
  candidatesTokenCount?: number;
  /** Thinking is billed as output but not counted in candidatesTokenCount. */
  thoughtsTokenCount?: number;
}

interface Chunk {
  candidates?: { content?: { parts?: Part[] }; finishReason?: string }[];
  usageMetadata?: GeminiUsage;
  promptFeedback?: { blockReason?: string };
  modelVersion?: string;
  error?: { code?: number; status?: string; message?: string };
}

const STOP: Record<string, StopReason> = { STOP: 'end', MAX_TOKENS: 'max_tokens' };

/** Server trouble and quota pass on retry; a rejected request does not. */
const RETRYABLE_STATUSES = new Set(['UNAVAILABLE', 'INTERNAL', 'RESOURCE_EXHAUSTED', 'DEADLINE_EXCEEDED']);

/** The model wrote a call the API could not parse, or one to a tool it was not offered: a bad sample, retried. */
const BAD_SAMPLE = new Set(['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL']);

const SYNTHETIC_PREFIX = 'recur_gc_';

/** Whether a call id was made up by this fold, because Gemini sent none. */
export function isSyntheticCallId(id: string): boolean {
  return id.startsWith(SYNTHETIC_PREFIX);
}

/**
 * Folds `GenerateContentResponse` chunks: each carries the next parts of the one candidate,
 * function calls arrive whole, and usageMetadata is cumulative, so the last one counts. There
 * is no end marker; the chunk with a finishReason is the last.
 */
export class GeminiStream implements WireStream {
  private text = '';
  private readonly calls: Draft['calls'] = [];
  private finishReason: string | null = null;
  private blockReason: string | null = null;
  private usage: Usage | null = null;
  private model?: string;

  /** `callKey` names the model call (agent and call index): the same on a retry or replay, different for every other call. */
  constructor(
    private readonly provider: string,
    private readonly callKey: string,
    private readonly onText?: TextDelta,
  ) {}

  onEvent(event: SseEvent): void {
    const chunk = parseStreamJson<Chunk>(this.provider, event.data);
    if (chunk.error) throw this.streamError(chunk.error);
    this.model = chunk.modelVersion ?? this.model;
    this.blockReason = chunk.promptFeedback?.blockReason ?? this.blockReason;
    const usage = chunk.usageMetadata;
    if (usage) {
      this.usage = {
        inputTokens: usage.promptTokenCount ?? 0,
        outputTokens: (usage.candidatesTokenCount ?? 0) + (usage.thoughtsTokenCount ?? 0),
        ...(usage.cachedContentTokenCount != null && { cacheReadTokens: usage.cachedContentTokenCount }),
      };
    }
    const candidate = chunk.candidates?.[0];
    for (const part of candidate?.content?.parts ?? []) {
      if (part.functionCall) this.addCall(part.functionCall);
      else if (part.text !== undefined && !part.thought) {
        this.text += part.text;
        this.onText?.(part.text);
      }
    }
    this.finishReason = candidate?.finishReason ?? this.finishReason;
  }

  finish(): Draft {
    const raw = this.finishReason ?? this.blockReason;
    if (raw === null) {
      throw new ProviderError(this.provider, 'stream ended before a finishReason', undefined, { retryable: true });
    }
    if (BAD_SAMPLE.has(raw)) throw new ProviderError(this.provider, `bad function call (${raw})`, undefined, { retryable: true });
    return { text: this.text, calls: this.calls, usage: this.usage, stopReason: STOP[raw] ?? 'other', rawStopReason: raw, model: this.model };
  }

  /** Gemini gives calls an id only on some surfaces; without one, the id is made from the model call and the call's place in it. */
  private addCall(call: NonNullable<Part['functionCall']>): void {
    const args = JSON.stringify(call.args ?? {});
    const digest = createHash('sha256').update(`${this.callKey}\n${this.calls.length}`).digest('hex');
    this.calls.push({ id: call.id || `${SYNTHETIC_PREFIX}${digest.slice(0, 16)}`, ...toolCallCode(args) });
  }


  private streamError(error: NonNullable<Chunk['error']>): ProviderError {
    const status = error.status ?? String(error.code ?? 'error');
    return new ProviderError(this.provider, `stream error: ${status}: ${error.message ?? 'unknown'}`, undefined, {
      retryable: RETRYABLE_STATUSES.has(status),
    });
  }
}
