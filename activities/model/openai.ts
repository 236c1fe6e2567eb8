import { withoutNativeToolCalls } from './messages';
import { OpenAIStream } from './openai-stream';
import { keyHeader } from './idempotency';
import { PYTHON_TOOL } from './python-tool';
import { streamingCall, type ProviderOptions } from './streaming-call';
import type { ChatMessage, ModelProvider, ModelRequest } from './types';

export interface OpenAIProviderConfig extends ProviderOptions {
  /** Name in specs, responses and price keys: `openai`, `groq`, `vllm`, … */
  name: string;
  /** Up to and including the version path, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  /** Sent as a bearer token when set; local servers need none. */
  apiKey?: string;
  /** Sent on every call as they are: a login's bearer token and the headers its API wants (auth/login-provider.ts). */
  headers?: Record<string, string>;
  /**
   * OpenAI's newer models reject `max_tokens`; several compatible servers know only that one.
   * Default `max_tokens`.
   */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
}

/** Chat Completions, streamed, against OpenAI or any server that speaks it. */
export function createOpenAIProvider(config: OpenAIProviderConfig): ModelProvider {
  const url = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const headers: Record<string, string> = { ...(config.apiKey && { authorization: `Bearer ${config.apiKey}` }), ...config.headers };
  return {
    name: config.name,
    complete: (request) =>
      streamingCall(config.name, config, request, {
        url,
        headers: { ...headers, ...keyHeader(config.name, request.idempotencyKey) },
        body: openAIRequestBody(request, config.maxTokensField ?? 'max_tokens'),
        newStream: (onText) => new OpenAIStream(config.name, onText),
      }),
  };
}

export function openAIRequestBody(request: ModelRequest, maxTokensField: string): Record<string, unknown> {
  const history = request.tools === 'none' ? withoutNativeToolCalls(request.messages) : request.messages;
  return {
    model: request.model,
    messages: [...(request.system ? [{ role: 'system', content: request.system }] : []), ...history.map(toOpenAIMessage)],
    stream: true,
    stream_options: { include_usage: true },
    ...(request.maxTokens !== undefined && { [maxTokensField]: request.maxTokens }),
    ...(request.temperature !== undefined && { temperature: request.temperature }),
    ...(request.tools === 'python' && { tools: [{ type: 'function', function: PYTHON_TOOL }] }),
  };
}

/** A native call and its result keep their ids; a fenced-code result goes back as a user turn. */
function toOpenAIMessage(m: ChatMessage): Record<string, unknown> {
  if (m.role === 'assistant' && m.toolCallId !== undefined && m.code !== undefined) {
    const call = { id: m.toolCallId, type: 'function', function: { name: PYTHON_TOOL.name, arguments: JSON.stringify({ code: m.code }) } };
    return { role: 'assistant', content: m.content || null, tool_calls: [call] };
  }
  if (m.role === 'tool' && m.toolCallId !== undefined) return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
  return { role: m.role === 'tool' ? 'user' : m.role, content: m.content };
}
