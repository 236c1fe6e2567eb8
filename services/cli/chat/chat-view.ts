import type { RecurEvent, StoredEvent } from '../../../schemas';
import { isDeltaFrame, isProblemFrame, type DeltaFrame, type LiveFrame } from '../../daemon/api-types';
import { formatEventLine, formatProblemLine, shortSessionId } from '../format-event';

/** Where the view writes; the caller makes it terminal-safe (no agent text drives the terminal). */
export type Write = (text: string) => void;

/** Lines of code or output shown per cell; the rest is counted, and `recur logs` has it all. */
const MAX_CELL_LINES = 40;

/** Events the transcript already shows in its own form, or that say nothing to someone chatting. */
const QUIET = new Set(['SessionStarted', 'KernelSnapshotted', 'WorkspaceChanged', 'NetworkConnection', 'MessageDelivered']);

const depth = (id: string): number => id.split('/').length - 1;

/**
 * Renders a tree's live frames as a conversation: model text as it streams, cells with their
 * outputs, sub-agents indented under their parent by depth. A reply that never streamed (no delta
 * of it reached us) is printed from its ModelCalled: the screen never misses what the log holds.
 */
export function createChatView(rootId: string, write: Write) {
  /** `<session>#<turn>` of the reply being streamed on the current line. */
  let open: string | null = null;
  const streamed = new Set<string>();
  /** Each session's last reply text, so an answer equal to it is not printed twice. */
  const lastReply = new Map<string, string>();
  const pad = (sessionId: string): string => '  '.repeat(Math.max(0, depth(sessionId) - depth(rootId)));
  const who = (sessionId: string): string => (sessionId === rootId ? 'agent' : shortSessionId(sessionId).split('/').pop()!);
  const endLine = (): void => {
    if (open !== null) write('\n');
    open = null;
  };
  const block = (sessionId: string, mark: string, text: string): void => {
    endLine();
    const lines = text.replace(/\n+$/, '').split('\n');
    const shown = lines.slice(0, MAX_CELL_LINES);
    for (const l of shown) write(`${pad(sessionId)}  ${mark} ${l}\n`);
    if (lines.length > shown.length) write(`${pad(sessionId)}  ${mark} … ${lines.length - shown.length} more lines\n`);
  };
  const say = (sessionId: string, text: string): void => {
    endLine();
    write(`${pad(sessionId)}${who(sessionId)} › ${text.replace(/\n/g, `\n${pad(sessionId)}`)}\n`);
  };

  function delta(d: DeltaFrame): void {
    const key = `${d.sessionId}#${d.turn}`;
    if (open !== key) {
      endLine();
      write(`${pad(d.sessionId)}${who(d.sessionId)} › `);
      open = key;
    }
    streamed.add(key);
    write(d.text.replace(/\n/g, `\n${pad(d.sessionId)}`));
  }

  function event(stored: StoredEvent): void {
    const e: RecurEvent = stored.event;
    const id = stored.sessionId;
    switch (e.type) {
      case 'ModelCalled': {
        const key = `${id}#${e.turn}`;
        lastReply.set(id, e.response);
        if (open === key) endLine();
        else if (!streamed.has(key) && e.response.trim()) say(id, e.response);
        streamed.delete(key);
        return;
      }
      case 'CellRequested':
        return block(id, '┆', e.code);
      case 'CellExecuted': {
        const error = e.errorName ? `\n${e.errorName}: ${e.errorValue ?? ''}` : '';
        const text = `${e.outputs}${error}`.trim();
        if (e.status !== 'ok') block(id, '→', `[${e.status}]`);
        if (text) block(id, '→', text);
        return;
      }
      case 'SubagentSpawned':
        endLine();
        write(`${pad(id)}  ↳ ${e.name} (${e.model}): ${e.task.split('\n')[0]}\n`);
        return;
      case 'SessionCompleted':
      case 'TaskEnded': {
        const answer = e.type === 'SessionCompleted' ? e.answer : e.answer ?? e.reason ?? e.status;
        if (answer.trim() !== (lastReply.get(id) ?? '').trim()) say(id, answer);
        return;
      }
      case 'SessionFailed':
        endLine();
        write(`${pad(id)}✗ ${who(id)} failed (${e.kind}): ${e.reason}\n`);
        return;
      default:
        if (QUIET.has(e.type)) return;
        endLine();
        write(`${pad(id)}  · ${formatEventLine(stored)}\n`);
    }
  }

  return {
    render(frame: LiveFrame): void {
      if (isDeltaFrame(frame)) return delta(frame);
      if (isProblemFrame(frame)) {
        endLine();
        write(`${formatProblemLine(frame)}\n`);
        return;
      }
      event(frame);
    },
    /** Ends a half-streamed line, before the prompt or a command's output. */
    endLine,
  };
}

export type ChatView = ReturnType<typeof createChatView>;
