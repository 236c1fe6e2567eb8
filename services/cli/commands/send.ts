import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { SendMessageReply } from '../../daemon/api-types';
import { advanceCursor, type Cursor } from '../../daemon/cursor';
import type { CommandContext } from '../command-context';
import { connectDaemon, sessionPath, type DaemonClient } from '../daemon-client';
import { eventFrames } from '../event-frames';
import { followSession } from '../follow-session';
import { readTreeLog } from '../tree-log';
import { answerTo } from '../turn-end';

const USAGE = 'usage: recur send <session-id> "<text>" [--wait] [--json]';

/**
 * Sends a message as the user. A root that answered stays open, so this is how it is continued
 * (docs/conversations.md). With --wait it follows the tree from where its log is now until the
 * round that answers this message ends, prints the answer and exits 0 (1 when the round failed or
 * the session ended instead); Ctrl-C stops waiting, never the session.
 */
export async function send(ctx: CommandContext): Promise<number> {
  const [sessionId, text, ...extra] = ctx.args;
  if (!sessionId || text === undefined || extra.length > 0) throw new ExitError(2, USAGE);
  const json = ctx.flags.json === true;
  const daemon = connectDaemon(loadConfig());
  // Read before sending: the follow must not miss the root taking the message.
  const head = ctx.flags.wait ? await headCursor(daemon, sessionId) : null;
  const messageId = await sendMessage(daemon, sessionId, text);
  if (!head) {
    ctx.out(json ? JSON.stringify({ sessionId, messageId }) : `sent ${messageId} to ${sessionId}`);
    return 0;
  }
  if (!json) ctx.err(`sent ${messageId} to ${sessionId}; waiting for the answer (Ctrl-C stops waiting, the session goes on)`);
  const interrupt = new AbortController();
  const onSigint = (): void => interrupt.abort();
  process.on('SIGINT', onSigint);
  try {
    const outcome = await followSession({
      sessionId, cursor: head, frames: eventFrames(daemon, sessionId, head, interrupt.signal), ends: answerTo(sessionId, messageId),
      signal: interrupt.signal, json, out: ctx.out, err: ctx.err,
    });
    if (outcome.kind === 'detached') return 130;
    if (outcome.kind === 'cut') throw new ExitError(1, `the event stream closed before ${sessionId} answered ${messageId}; see recur logs ${sessionId}`);
    const e = outcome.end.event;
    if (json) return outcome.code;
    if ((e.type === 'TaskEnded' || e.type === 'SessionCompleted') && outcome.code === 0) {
      ctx.out('');
      ctx.out(e.answer ?? '');
    } else {
      ctx.err(`no answer: ${outcome.end.type}${'reason' in e && e.reason ? `: ${e.reason}` : ''}`);
    }
    return outcome.code;
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/** The tree's log as it stands: every session's last seq. */
async function headCursor(daemon: DaemonClient, sessionId: string): Promise<Cursor> {
  let cursor: Cursor = {};
  for (const e of await readTreeLog(daemon, sessionId)) cursor = advanceCursor(cursor, e.sessionId, e.seq);
  return cursor;
}

/** Delivers `text` from the user; a completed, retained root wakes to answer it. Returns the message id. */
export async function sendMessage(daemon: DaemonClient, sessionId: string, text: string): Promise<string> {
  return (await daemon.post<SendMessageReply>(sessionPath(sessionId, 'messages'), { text })).messageId;
}
