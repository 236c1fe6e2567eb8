/**
 * The provider-neutral shape of one model call. Every provider (OpenAI-compatible, Anthropic,
 * scripted) takes a `ModelRequest` and returns a `ModelResponse`; the wire formats live in the
 * provider files only.
 */

/**
 * One transcript entry. An assistant turn that ran Python keeps its `code`; a native tool call
 * also keeps `toolCallId`, and the `tool` message answering it carries the same id. A fenced
 * ```python turn has `code` but no id, and its result is a `tool` message without an id (sent to
 * the model as a user turn).
 */
/** The process environment a model is configured from (API keys, base URLs). */
export type Env = Record<string, string | undefined>;

export interface ChatMessage {
  role: 'user' | 'assistant' | 'tool';
  content: string;
  toolCallId?: string;
  code?: string;
}

export interface ModelRequest {
  /** Provider-specific model name, e.g. `gpt-4o` or `claude-sonnet-4-5`. */
  model: string;
  system: string;
  /**
   * Offsets into `system`, ascending, where a stable prefix ends (the base prompt, then the
   * harness): providers that cache prompts put a cache breakpoint at each, and one after the
   * last turn, since the next call's prompt extends this one; the others ignore them. Set only
   * for a session's own turns: a one-off call (a compaction summary) is not worth a cache write.
   */
  cacheBreaks?: number[];
  messages: ChatMessage[];
  /** `python` offers the one native tool; `none` offers nothing (native calls in history are sent as fenced code). */
  tools: 'python' | 'none';
  maxTokens?: number;
  temperature?: number;
  signal?: AbortSignal;
  /** The calling agent's name: `root` or the child's name. */
  agent: string;
  /**
   * 0-based index of this agent's model call, chosen by the caller so that a retried or replayed
   * call is the same call (the scripted model answers by it).
   */
  callIndex: number;
  /** The same for every retry of this call (idempotency.ts); sent where the provider takes one. */
  idempotencyKey?: string;
  /**
   * Told each piece of reply text as it arrives, for a live view only: best-effort (a retried
   * attempt streams again from its start); the returned response is the record.
   */
  onTextDelta?: TextDelta;
}

export type TextDelta = (text: string) => void;

/** A request as `createModel` takes it: the model name comes from the spec. */
export type ModelCall = Omit<ModelRequest, 'model'>;

export interface Usage {
  /** Every prompt token, cache reads and writes included (the budget counts them all). */
  inputTokens: number;
  outputTokens: number;
  /** Of `inputTokens`, those read from the provider's prompt cache; absent when it reported none. */
  cacheReadTokens?: number;
  /** Of `inputTokens`, those written to the prompt cache (priced above plain input by some providers). */
  cacheWriteTokens?: number;
}

/**
 * `end`: the model finished its turn; `tool_call`: it called `python`; `max_tokens`: cut off;
 * `refusal`: the provider marked the reply a refusal (OpenAI's `refusal`, Anthropic's stop reason).
 */
export type StopReason = 'end' | 'tool_call' | 'max_tokens' | 'refusal' | 'other';

export interface ModelResponse {
  text: string;
  /** The Python to run: a native call's `code`, else the fenced ```python blocks joined; null when none. */
  code: string | null;
  /** Set only for a native tool call; the tool result must echo it. */
  toolCallId?: string;
  /** Why native `python` calls could not be read (malformed arguments); their code is not run. */
  toolCallErrors?: string[];
  usage: Usage;
  /** False when the provider reported no usage and `usage` is estimated from the text (the scripted model always). */
  usageReported: boolean;
  /** 0 for models without a known price; always present. */
  costUsd: number;
  /** Wall time of the whole call, retries included. */
  latencyMs: number;
  /** HTTP attempts made (1 when the first one succeeded; 0 for the scripted model). */
  attempts: number;
  model: string;
  provider: string;
  stopReason: StopReason;
  /** The provider's own stop reason (`stop`, `tool_use`, `content_filter`, …), for audit. */
  rawStopReason: string | null;
}

export interface ModelProvider {
  /** Provider name as in the spec: `openai`, `anthropic`, `groq`, `scripted`, … */
  readonly name: string;
  complete(request: ModelRequest): Promise<ModelResponse>;
}

/** A provider bound to one model by `createModel(spec)`. */
export interface Model {
  readonly provider: string;
  readonly model: string;
  complete(call: ModelCall): Promise<ModelResponse>;
}
