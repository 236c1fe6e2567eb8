import { AnthropicStream } from './anthropic-stream';
import { splitSystem, withoutNativeToolCalls } from './messages';
import { PYTHON_TOOL } from './python-tool';
import { streamingCall, type ProviderOptions } from './streaming-call';
import type { ChatMessage, ModelProvider, ModelRequest } from './types';

export interface AnthropicProviderConfig extends ProviderOptions {
  /** Without the version path, e.g. `https://api.anthropic.com`. */
  baseUrl: string;
  apiKey: string;
}

export const ANTHROPIC_VERSION = '2023-06-01';

/** The Messages API requires `max_tokens`; this is used when the request sets none. */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192;

type Block = (
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: { code: string } }
  | { type: 'tool_result'; tool_use_id: string; content?: string }
) & { cache_control?: typeof EPHEMERAL };

/** The 5-minute cache; a breakpoint caches everything before it (tools, then system, then turns). */
const EPHEMERAL = { type: 'ephemeral' } as const;

interface Turn {
  role: 'user' | 'assistant';
  content: Block[];
}

/** Messages API, streamed. */
export function createAnthropicProvider(config: AnthropicProviderConfig): ModelProvider {
  const url = `${config.baseUrl.replace(/\/+$/, '')}/v1/messages`;
  const headers = { 'x-api-key': config.apiKey, 'anthropic-version': ANTHROPIC_VERSION };
  return {
    name: 'anthropic',
    complete: (request) =>
      streamingCall('anthropic', config, request, {
        url,
        headers,
        body: anthropicRequestBody(request),
        newStream: (onText) => new AnthropicStream('anthropic', onText),
      }),
  };
}

export function anthropicRequestBody(request: ModelRequest): Record<string, unknown> {
  const history = request.tools === 'none' ? withoutNativeToolCalls(request.messages) : request.messages;
  const { name, description, parameters } = PYTHON_TOOL;
  const messages = toAnthropicTurns(history);
  const caching = request.cacheBreaks !== undefined;
  const system = caching
    ? splitSystem(request.system, request.cacheBreaks).map((p) => ({ type: 'text', text: p.text, ...(p.cached && { cache_control: EPHEMERAL }) }))
    : request.system;
  // The conversation so far is the next call's prefix: a breakpoint after it caches the turns too.
  const lastTurn = messages[messages.length - 1];
  if (caching && lastTurn) lastTurn.content[lastTurn.content.length - 1].cache_control = EPHEMERAL;
  return {
    model: request.model,
    max_tokens: request.maxTokens ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    ...(system.length > 0 && { system }),
    messages,
    stream: true,
    ...(request.temperature !== undefined && { temperature: request.temperature }),
    ...(request.tools === 'python' && { tools: [{ name, description, input_schema: parameters }] }),
  };
}

/**
 * Roles must alternate, so tool results and user text that follow each other share one user
 * turn, tool results first (the API requires them before any text). Empty text blocks are
 * rejected by the API, so they are dropped.
 */
export function toAnthropicTurns(messages: ChatMessage[]): Turn[] {
  const turns: Turn[] = [];
  for (const m of messages) {
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const blocks = toBlocks(m);
    if (blocks.length === 0) continue;
    const last = turns[turns.length - 1];
    if (last?.role === role) last.content.push(...blocks);
    else turns.push({ role, content: blocks });
  }
  for (const turn of turns) {
    if (turn.role === 'user') turn.content.sort((a, b) => rank(a) - rank(b));
  }
  return turns;
}

function toBlocks(m: ChatMessage): Block[] {
  const text: Block[] = m.content ? [{ type: 'text', text: m.content }] : [];
  if (m.role === 'assistant' && m.toolCallId !== undefined && m.code !== undefined) {
    return [...text, { type: 'tool_use', id: m.toolCallId, name: PYTHON_TOOL.name, input: { code: m.code } }];
  }
  if (m.role !== 'tool') return text;
  if (m.toolCallId !== undefined) {
    return [{ type: 'tool_result', tool_use_id: m.toolCallId, ...(m.content && { content: m.content }) }];
  }
  // Dropping an empty result would leave the assistant's turn last, which the API takes as a prefill.
  return [{ type: 'text', text: m.content || '(no output)' }];
}

/** Array.prototype.sort is stable, so this only moves tool results ahead of text. */
function rank(block: Block): number {
  return block.type === 'tool_result' ? 0 : 1;
}
