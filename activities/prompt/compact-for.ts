import type { StoredEvent } from '../../schemas';
import type { Model } from '../model/types';
import { buildPrompt } from './build-prompt';
import { estimateTokens, planCompaction, SUMMARY_SYSTEM, summaryRequest } from './compact';
import type { CompactedFields } from './long-run-notes';

/**
 * Summarises older turns when the prompt over `events` is past `atTokens`: one call to the
 * session's own model (the scripted model answers it as agent `<agent>:compact`). Null when the
 * prompt fits or nothing more can be dropped. `manual`: an operator asked (atTokens 0 then keeps
 * only the latest turn).
 */
export async function compactFor(
  model: Model, events: readonly StoredEvent[], atTokens: number,
  call: { agent: string; callIndex: number; idempotencyKey?: string; signal?: AbortSignal }, manual = false,
): Promise<CompactedFields | null> {
  const plan = planCompaction(events, atTokens);
  if (!plan) return null;
  const res = await model.complete({
    system: SUMMARY_SYSTEM, messages: [summaryRequest(plan)], tools: 'none',
    agent: `${call.agent}:compact`, callIndex: call.callIndex, idempotencyKey: call.idempotencyKey, signal: call.signal,
  });
  const { transcript: _, ...fields } = plan;
  const compacted = {
    ...fields, manual, summary: res.text, tokensAfter: 0, tokensIn: res.usage.inputTokens, tokensOut: res.usage.outputTokens, costUsd: res.costUsd,
  };
  compacted.tokensAfter = estimateTokens(buildPrompt(events, compacted));
  return compacted;
}
