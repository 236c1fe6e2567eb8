import type { ModelRequest, Usage } from './types';

/** About four characters a token, as for English text: a stand-in only where no count was reported. */
export function roughTokens(text: string): number {
  return Math.ceil(text.length / 4);
}

/** A call's usage guessed from its prompt and reply, for a provider (or a proxy) that reported none. */
export function estimateUsage(request: Pick<ModelRequest, 'system' | 'messages'>, reply: string): Usage {
  const prompt = request.system + request.messages.map((m) => m.content + (m.code ?? '')).join('');
  return { inputTokens: roughTokens(prompt), outputTokens: roughTokens(reply) };
}
