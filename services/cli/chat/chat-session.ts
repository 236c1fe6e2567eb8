import type { StoredEvent } from '../../../schemas';
import { isDeltaFrame, isProblemFrame, type LiveFrame } from '../../daemon/api-types';
import { advanceCursor, type Cursor } from '../../daemon/cursor';
import { sessionPath, type DaemonClient } from '../daemon-client';
import { eventFrames } from '../event-frames';
import { closedSessionFrames } from '../stream-session';
import { sendMessage } from '../commands/send';
import type { ChatView } from './chat-view';

/** A root's events that mean it is working on something. */
const WORKING = new Set(['SessionStarted', 'SessionResumed', 'MessageDelivered', 'ModelCalled', 'CellRequested']);
/** A root's end for good: its first round failed, or it was closed (killed) after an answer (docs/conversations.md). */
const SESSION_ENDS = new Set(['SessionFailed', 'SessionClosed']);
/** A root's events that end its turn: the answer (round 0, then each later round), or its end for good. */
const TURN_ENDS = new Set(['SessionCompleted', 'TaskEnded', ...SESSION_ENDS]);

export interface ChatSessionOptions {
  daemon: DaemonClient;
  sessionId: string;
  cursor: Cursor;
  view: ChatView;
  /** The root finished its turn (answered, or ended for good); `ended` when it logged SessionFailed or SessionClosed. */
  onTurnEnd: (ended: boolean) => void;
  /** The stream or a read failed; the chat goes on, and the next message reconnects. */
  onError: (message: string) => void;
}

/**
 * One chat's hold on a session tree: follows its live frames into the view, keeps the cursor past
 * every event shown, knows whether the root is working and which cells run, and sends follow-ups.
 */
export function createChatSession(o: ChatSessionOptions) {
  let cursor = o.cursor;
  let busy = false;
  /** Cells requested and not yet executed, by session. */
  const running = new Set<string>();
  let stop = new AbortController();
  let following: Promise<void> | null = null;

  function observe(frame: LiveFrame): void {
    o.view.render(frame);
    if (isDeltaFrame(frame) || isProblemFrame(frame)) return;
    const e: StoredEvent = frame;
    cursor = advanceCursor(cursor, e.sessionId, e.seq);
    if (e.type === 'CellRequested') running.add(e.sessionId);
    if (e.type === 'CellExecuted' || TURN_ENDS.has(e.type)) running.delete(e.sessionId);
    if (e.sessionId !== o.sessionId) return;
    if (WORKING.has(e.type)) busy = true;
    // A root closed while idle (killed from another terminal) ends the chat too.
    const ended = SESSION_ENDS.has(e.type);
    if ((TURN_ENDS.has(e.type) && busy) || ended) {
      busy = false;
      o.view.endLine();
      o.onTurnEnd(ended);
    }
  }

  /** Live frames until the daemon ends the stream (the workflow closed), then what the log has past them. */
  async function follow(closed: boolean): Promise<void> {
    const signal = stop.signal;
    try {
      if (!closed) for await (const f of eventFrames(o.daemon, o.sessionId, cursor, signal, { deltas: true })) observe(f);
      if (signal.aborted) return;
      for (const f of (await closedSessionFrames(o.daemon, o.sessionId, cursor)).frames) observe(f);
    } catch (err) {
      if (!signal.aborted) o.onError((err as Error).message);
    }
  }

  const ensureFollowing = (closed = false): void => {
    following ??= follow(closed).finally(() => (following = null));
  };

  return {
    /**
     * Starts following. `closed`: the workflow has closed, so only the log's remaining events are
     * read; `busy` and `cellRunning`: what the root is doing past the cursor, as its status says.
     */
    start(state: { busy: boolean; closed: boolean; cellRunning?: boolean }): void {
      busy = state.busy;
      if (state.cellRunning) running.add(o.sessionId);
      ensureFollowing(state.closed);
    },
    get busy(): boolean {
      return busy;
    },
    get cursor(): Cursor {
      return cursor;
    },
    cellsRunning: (): number => running.size,
    /** Sends a follow-up; the root wakes (or reads it before its next model call) and answers. */
    async send(text: string): Promise<void> {
      await sendMessage(o.daemon, o.sessionId, text);
      busy = true;
      ensureFollowing();
    },
    /** Asks each session with a running cell to interrupt it; how many had one to interrupt. */
    async interrupt(): Promise<number> {
      const replies = await Promise.all([...running].map((id) => o.daemon.post<{ interrupted: boolean }>(sessionPath(id, 'interrupt'), {})));
      return replies.filter((r) => r.interrupted).length;
    },
    /** Stops following; resolves once the stream has let go. */
    async close(): Promise<void> {
      stop.abort();
      await following;
      stop = new AbortController();
    },
  };
}

export type ChatSession = ReturnType<typeof createChatSession>;
