import type { ChatMessage } from '../model/types';
import { extractFencedPython } from '../model/extract-code';
import { cellNote } from '../model/reply-check';
import type { StoredEvent } from '../../schemas';
import { BASE_SYSTEM_PROMPT } from './system-prompt';
import type { GoalChanged } from '../../schemas/generated/events';
import { compactedNote, forkedNote, injectedMessage, lastCompaction, withGoal, type CompactedFields } from './long-run-notes';
import { contextSection, type ShownContextFile } from './context-section';
import { jobEndedNote } from './job-note';
import { researchNote } from '../../workflows/research/research-note';
import { ledgerHead } from './ledger-head';

export interface Prompt {
  system: string;
  /** Where the stable prefixes of `system` end (the base prompt, then the harness): cache breakpoints. */
  cacheBreaks: number[];
  messages: ChatMessage[];
}

function taskText(e: Extract<StoredEvent['event'], { type: 'SessionStarted' }>, sessionId: string): string {
  if (!e.parentId) return e.task;
  return `You are sub-agent "${e.name}" (session ${sessionId}), started by ${e.parentId}. Your task:\n\n${e.task}`;
}

function cellResultText(e: Extract<StoredEvent['event'], { type: 'CellExecuted' }>): string {
  const parts: string[] = [];
  if (e.outputs) parts.push(e.outputs);
  if (e.status === 'error') parts.push(e.traceback ?? `${e.errorName}: ${e.errorValue}`);
  if (e.status === 'timeout') parts.push('[the cell hit its time limit and was interrupted; the kernel and its variables are intact]');
  if (e.status === 'interrupted' && !e.outputs) parts.push('[the cell was interrupted and not re-run]');
  return parts.join('\n') || '[no output]';
}

/**
 * Rebuilds the conversation a session's model sees from the session's own log, so nothing but
 * event references passes through the workflow. Pure: the same events give the same prompt.
 * A compaction (logged, or `pending` before it is) shows its summary in place of the turns it covers.
 * The system prompt runs from the most stable part to the least, so a provider's prompt cache
 * keeps the longest prefix: the base prompt, the Continual Harness (`harness`, which changes only
 * when an entry is edited), then the workspace's instruction files (`context`, read for this call
 * and logged with its ModelCalled) and the goal.
 */
export function buildPrompt(
  events: readonly StoredEvent[], pending: CompactedFields | null = null, context: readonly ShownContextFile[] = [], harness = '',
): Prompt {
  const compaction = pending ?? lastCompaction(events);
  let goal: GoalChanged | null = null;
  const messages: ChatMessage[] = [];
  const toolCallOf = new Map<string, string | undefined>();
  // The reply whose cell comes next, for a note on how its fenced code was taken.
  let fenced: { response: string; stopReason: string } | null = null;
  const push = (m: ChatMessage) => {
    const last = messages[messages.length - 1];
    if (m.role === 'user' && last?.role === 'user') last.content += `\n\n${m.content}`;
    else messages.push(m);
  };
  // A job may end while a cell runs; its note waits for the cell's result, which must follow the call.
  let cellOpen = false;
  const held: string[] = [];
  for (const { event: e, eventId, sessionId, seq } of events) {
    if (e.type === 'GoalChanged') goal = e;
    if (compaction && seq >= compaction.fromSeq && seq <= compaction.toSeq) {
      if (seq === compaction.fromSeq) {
        push({ role: 'user', content: compactedNote(compaction) });
        const head = ledgerHead(events, compaction.toSeq);
        if (head) push({ role: 'user', content: head });
      }
      continue;
    }
    switch (e.type) {
      case 'SessionStarted':
        push({ role: 'user', content: taskText(e, sessionId) });
        break;
      case 'ModelCalled': {
        const call = e.toolCalls.find((t) => t.name === 'python');
        const code = call ? (JSON.parse(call.arguments) as { code: string }).code : extractFencedPython(e.response);
        fenced = call ? null : e;
        // An empty reply (rejected, its note follows) is no turn at all: some APIs refuse an empty assistant message.
        if (!e.response.trim() && code === null) break;
        push({ role: 'assistant', content: e.response, ...(code !== null && { code }), ...(call && { toolCallId: call.id }) });
        break;
      }
      case 'CellRequested':
        toolCallOf.set(eventId, e.toolCallId ?? undefined);
        cellOpen = true;
        break;
      case 'CellExecuted': {
        const toolCallId = toolCallOf.get(e.requestId);
        const note = fenced ? cellNote(fenced.response, fenced.stopReason) : '';
        push({ role: 'tool', content: cellResultText(e) + note, ...(toolCallId && { toolCallId }) });
        cellOpen = false;
        for (const text of held.splice(0)) push({ role: 'user', content: text });
        break;
      }
      case 'JobEnded':
      case 'ExperimentRecorded':
      case 'RecordAccepted':
      case 'RecordRejected':
      case 'RecordReleased': {
        const note = e.type === 'JobEnded' ? jobEndedNote(e) : researchNote(e);
        if (cellOpen) held.push(note);
        else push({ role: 'user', content: note });
        break;
      }
      case 'MessageDelivered':
        if (e.via === 'prompt') push({ role: 'user', content: `[message from ${e.from}] ${e.text}` });
        break;
      case 'ForkedFrom':
        // The origin's goal stays behind: the fork's workflow does not hold it.
        goal = null;
        push({ role: 'user', content: forkedNote(e) });
        break;
      case 'ReplyRejected':
        push({ role: 'user', content: e.note });
        break;
      case 'ContinuationInjected':
      case 'ScheduleFired':
        push({ role: 'user', content: injectedMessage(e) });
        break;
      default:
        break;
    }
  }
  for (const text of held) push({ role: 'user', content: text });
  const stable = BASE_SYSTEM_PROMPT + harness;
  return { system: withGoal(stable + contextSection(context), goal), cacheBreaks: [BASE_SYSTEM_PROMPT.length, stable.length], messages };
}
