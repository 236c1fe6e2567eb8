import type { StoredEvent } from '../../schemas';
import type { ChatMessage } from '../model/types';
import { buildPrompt, type Prompt } from './build-prompt';
import { lastCompaction } from './long-run-notes';

/** Share of the compaction threshold kept verbatim as the recent tail. */
const KEEP_RECENT_SHARE = 0.25;

/** About four characters a token: the same rough count the budget is set in. */
export function estimateTokens(p: Pick<Prompt, 'system' | 'messages'>): number {
  return Math.ceil((p.system.length + p.messages.reduce((n, m) => n + m.content.length + (m.code?.length ?? 0), 0)) / 4);
}

export interface CompactionPlan {
  fromSeq: number;
  toSeq: number;
  droppedTurns: number;
  droppedChars: number;
  tokensBefore: number;
  /** The dropped part (with the earlier summary, if any) as text for the summariser. */
  transcript: string;
}

/**
 * Whether the prompt over `events` is past `atTokens`, and if so which older turns to summarise:
 * everything after the task up to the newest turn boundary that leaves a recent tail of about a
 * quarter of the budget (at least the latest turn is kept). Pure; null when there is nothing to do.
 */
export function planCompaction(events: readonly StoredEvent[], atTokens: number): CompactionPlan | null {
  const tokensBefore = estimateTokens(buildPrompt(events));
  if (tokensBefore <= atTokens) return null;
  const previous = lastCompaction(events);
  const turnStarts = events.filter((e) => e.type === 'ModelCalled' && e.seq > (previous?.toSeq ?? 0)).map((e) => e.seq);
  if (turnStarts.length < 2) return null;
  let cut = turnStarts[turnStarts.length - 1];
  for (let i = turnStarts.length - 2; i >= 1; i--) {
    const tail = estimateTokens({ system: '', messages: buildPrompt(events.filter((e) => e.seq >= turnStarts[i])).messages });
    if (tail > atTokens * KEEP_RECENT_SHARE) break;
    cut = turnStarts[i];
  }
  const dropped = events.filter((e) => e.seq > (previous?.toSeq ?? 0) && e.seq < cut);
  const newly = buildPrompt(dropped).messages;
  const text = [
    ...(previous ? [`Summary of the turns before:\n${previous.summary}`] : []),
    ...newly.map(render),
  ].join('\n\n');
  return {
    fromSeq: 1,
    toSeq: cut - 1,
    droppedTurns: events.filter((e) => e.type === 'ModelCalled' && e.seq < cut).length,
    droppedChars: newly.reduce((n, m) => n + m.content.length + (m.code?.length ?? 0), 0),
    tokensBefore,
    transcript: text,
  };
}

function render(m: ChatMessage): string {
  const who = m.role === 'assistant' ? 'Agent' : m.role === 'tool' ? 'Cell output' : 'User';
  return `${who}: ${m.content}${m.code ? `\n[ran]\n${m.code}` : ''}`;
}

/** Instructions for the summariser call. */
export const SUMMARY_SYSTEM = `You compact an agent's working history. Write a structured summary another instance of the agent can continue from: the request and its intent, what was done (cells run and what they found, with concrete values and variable names), decisions, what failed and why, and what remains. Be specific so no finished work is redone. Plain text, no code to run.`;

/** The summariser's one user message. */
export function summaryRequest(plan: CompactionPlan): ChatMessage {
  return { role: 'user', content: `Summarise this history:\n\n${plan.transcript}` };
}
