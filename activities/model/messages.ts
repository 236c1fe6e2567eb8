import { fencePython } from './extract-code';
import type { ChatMessage } from './types';

/**
 * Rewrites native tool calls as fenced code and their results as plain user turns, for a call
 * that offers no tools: both wire formats reject tool-call history without tool definitions.
 */
export function withoutNativeToolCalls(messages: ChatMessage[]): ChatMessage[] {
  return messages.map((m) => {
    if (m.toolCallId === undefined) return m;
    if (m.role === 'assistant' && m.code !== undefined) {
      const content = m.content ? `${m.content}\n\n${fencePython(m.code)}` : fencePython(m.code);
      return { role: 'assistant', content, code: m.code };
    }
    return { role: m.role, content: m.content };
  });
}
