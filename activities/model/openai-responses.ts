import { withoutNativeToolCalls } from './messages';
import { ResponsesStream } from './openai-responses-stream';
import { keyHeader } from './idempotency';
import { PYTHON_TOOL } from './python-tool';
import { streamingCall, type ProviderOptions } from './streaming-call';
import type { ChatMessage, ModelProvider, ModelRequest } from './types';

export interface OpenAIResponsesProviderConfig extends ProviderOptions {
  /** `openai-responses`, or a login-backed provider on the same wire (`chatgpt`). */
  name: string;
  /** Up to and including the version path, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  /** Sent as a bearer token when set. */
  apiKey?: string;
  /** Sent on every call as they are: a login's bearer token and the headers its API wants (auth/login-provider.ts). */
  headers?: Record<string, string>;
}

/** OpenAI Responses API, streamed; `openai-responses` is billed as `openai/<model>`, a subscription login at its plan's price (0 here). */
export function createOpenAIResponsesProvider(config: OpenAIResponsesProviderConfig): ModelProvider {
  const { name } = config;
  const url = `${config.baseUrl.replace(/\/+$/, '')}/responses`;
  const headers: Record<string, string> = { ...(config.apiKey && { authorization: `Bearer ${config.apiKey}` }), ...config.headers };
  return {
    name,
    complete: (request) =>
      streamingCall(name, config, request, {
        url,
        headers: { ...headers, ...keyHeader(name, request.idempotencyKey) },
        body: responsesRequestBody(request),
        newStream: (onText) => new ResponsesStream(name, onText),
        ...(name === 'openai-responses' && { pricedAs: 'openai' }),
      }),
  };
}

export function responsesRequestBody(request: ModelRequest): Record<string, unknown> {
  const history = request.tools === 'none' ? withoutNativeToolCalls(request.messages) : request.messages;
  const { name, description, parameters } = PYTHON_TOOL;
  return {
    model: request.model,
    ...(request.system && { instructions: request.system }),
    input: history.flatMap(toInputItems),
    stream: true,
    // The transcript is Recur's, sent whole each call: nothing need be kept on OpenAI's side.
    store: false,
    ...(request.maxTokens !== undefined && { max_output_tokens: request.maxTokens }),
    ...(request.temperature !== undefined && { temperature: request.temperature }),
    // Strict mode would demand `additionalProperties: false` in the schema; Chat Completions is not strict either.
    ...(request.tools === 'python' && { tools: [{ type: 'function', name, description, parameters, strict: false }] }),
  };
}

/** A native call becomes a function_call item after its text, its result a function_call_output. */
function toInputItems(m: ChatMessage): Record<string, unknown>[] {
  if (m.role === 'assistant' && m.toolCallId !== undefined && m.code !== undefined) {
    const call = { type: 'function_call', call_id: m.toolCallId, name: PYTHON_TOOL.name, arguments: JSON.stringify({ code: m.code }) };
    return [...(m.content ? [{ role: 'assistant', content: m.content }] : []), call];
  }
  if (m.role === 'tool' && m.toolCallId !== undefined) return [{ type: 'function_call_output', call_id: m.toolCallId, output: m.content }];
  return [{ role: m.role === 'tool' ? 'user' : m.role, content: m.content }];
}
