import { GeminiStream, isSyntheticCallId } from './gemini-stream';
import { withoutNativeToolCalls } from './messages';
import { PYTHON_TOOL } from './python-tool';
import { streamingCall, type ProviderOptions } from './streaming-call';
import type { ChatMessage, ModelProvider, ModelRequest } from './types';

export interface GeminiProviderConfig extends ProviderOptions {
  /** Without the version path, e.g. `https://generativelanguage.googleapis.com`. */
  baseUrl: string;
  apiKey: string;
}

type Part =
  | { text: string }
  | { functionCall: { id?: string; name: string; args: { code: string } }; thoughtSignature: string }
  | { functionResponse: { id?: string; name: string; response: { output: string } } };

interface Content {
  role: 'user' | 'model';
  parts: Part[];
}

/**
 * Gemini 3 rejects a replayed function call without the thought signature it came with; the
 * transcript keeps none, so calls carry the sentinel Google documents for history it did not
 * sign (https://ai.google.dev/gemini-api/docs/thought-signatures); Gemini 2.5 accepts it too.
 */
export const UNSIGNED_THOUGHT = 'skip_thought_signature_validator';

/** Gemini API `streamGenerateContent`, as SSE. */
export function createGeminiProvider(config: GeminiProviderConfig): ModelProvider {
  const base = config.baseUrl.replace(/\/+$/, '');
  const headers = { 'x-goog-api-key': config.apiKey };
  return {
    name: 'gemini',
    complete: (request) =>
      streamingCall('gemini', config, request, {
        url: `${base}/v1beta/models/${encodeURIComponent(request.model)}:streamGenerateContent?alt=sse`,
        headers,
        body: geminiRequestBody(request),
        newStream: (onText) => new GeminiStream('gemini', `${request.agent}\n${request.callIndex}`, onText),
      }),
  };
}

export function geminiRequestBody(request: ModelRequest): Record<string, unknown> {
  const history = request.tools === 'none' ? withoutNativeToolCalls(request.messages) : request.messages;
  const generationConfig = {
    ...(request.maxTokens !== undefined && { maxOutputTokens: request.maxTokens }),
    ...(request.temperature !== undefined && { temperature: request.temperature }),
  };
  return {
    ...(request.system && { systemInstruction: { parts: [{ text: request.system }] } }),
    contents: toGeminiContents(history),
    ...(request.tools === 'python' && { tools: [{ functionDeclarations: [PYTHON_TOOL] }] }),
    ...(Object.keys(generationConfig).length > 0 && { generationConfig }),
  };
}

/**
 * Neighbouring turns of one role share a content, so a function response and the user text
 * after it travel together, as the API expects. A content may not be empty, so empty text is
 * dropped and an empty fenced-code result is sent as `(no output)`.
 */
export function toGeminiContents(messages: ChatMessage[]): Content[] {
  const contents: Content[] = [];
  for (const m of messages) {
    const role = m.role === 'assistant' ? 'model' : 'user';
    const parts = toParts(m);
    if (parts.length === 0) continue;
    const last = contents[contents.length - 1];
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  }
  return contents;
}

function toParts(m: ChatMessage): Part[] {
  const text: Part[] = m.content ? [{ text: m.content }] : [];
  // An id Gemini did not send was made up here; the API is given back only its own.
  const id = m.toolCallId !== undefined && !isSyntheticCallId(m.toolCallId) ? { id: m.toolCallId } : {};
  if (m.role === 'assistant' && m.toolCallId !== undefined && m.code !== undefined) {
    return [...text, { functionCall: { ...id, name: PYTHON_TOOL.name, args: { code: m.code } }, thoughtSignature: UNSIGNED_THOUGHT }];
  }
  if (m.role !== 'tool') return text;
  if (m.toolCallId !== undefined) return [{ functionResponse: { ...id, name: PYTHON_TOOL.name, response: { output: m.content } } }];
  return [{ text: m.content || '(no output)' }];
}
