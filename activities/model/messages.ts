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

/**
 * `system` cut at its cache breaks: each stable prefix a part marked `cached` (a provider puts a
 * breakpoint after it), the volatile rest last and unmarked. Empty parts (an empty harness) drop.
 */
export function splitSystem(system: string, breaks: readonly number[] = []): { text: string; cached: boolean }[] {
  const parts: { text: string; cached: boolean }[] = [];
  let from = 0;
  for (const at of breaks) {
    if (at <= from || at > system.length) continue;
    parts.push({ text: system.slice(from, at), cached: true });
    from = at;
  }
  if (from < system.length) parts.push({ text: system.slice(from), cached: false });
  return parts;
}
