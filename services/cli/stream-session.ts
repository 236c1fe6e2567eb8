import type { RecurConfig } from '../../config';
import { ExitError } from '../../errors';
import type { StoredEvent } from '../../schemas';
import type { LogReply, SessionDetail, StreamFrame } from '../daemon/api-types';
import { isPastCursor, type Cursor } from '../daemon/cursor';
import type { CommandContext } from './cli';
import { clearCursor, saveCursor } from './cursor-file';
import { sessionPath, type DaemonClient } from './daemon-client';
import { eventFrames } from './event-frames';
import { followSession, type FollowOutcome } from './follow-session';
import type { CiOptions } from './ci/ci-flags';
import { finishRun } from './ci/write-reports';

export interface StreamSessionOptions {
  config: RecurConfig;
  daemon: DaemonClient;
  sessionId: string;
  cursor: Cursor;
  json: boolean;
  /** Reports to write and the exit codes to use once the session ends. */
  ci: CiOptions;
}

/** A closed session's remaining events come from the bounded log read: a live stream would never end without an end event. */
export async function* closedSessionFrames(daemon: DaemonClient, sessionId: string, cursor: Cursor): AsyncGenerator<StreamFrame> {
  const log = await daemon.get<LogReply>(sessionPath(sessionId, 'log'));
  yield* log.problems;
  yield* log.events.filter((e) => isPastCursor(cursor, e.sessionId, e.seq));
}

/**
 * Prints a session tree's events from `cursor` until the session ends and returns its exit code
 * (0 completed, 1 failed; in CI mode the codes of ci/exit-codes.ts). Ctrl-C detaches: the cursor
 * is saved for `recur attach` and 130 returned.
 */
export async function streamSession(ctx: CommandContext, o: StreamSessionOptions, detail?: SessionDetail): Promise<number> {
  const interrupt = new AbortController();
  const onSigint = (): void => interrupt.abort();
  process.on('SIGINT', onSigint);
  let outcome: FollowOutcome;
  try {
    const closed = detail !== undefined && detail.status !== 'running';
    const frames = closed ? closedSessionFrames(o.daemon, o.sessionId, o.cursor) : eventFrames(o.daemon, o.sessionId, o.cursor, interrupt.signal);
    outcome = await followSession({ ...o, frames, signal: interrupt.signal, out: ctx.out, err: ctx.err });
    if (outcome.kind === 'cut' && !closed) {
      // The daemon ends a live stream when the session's workflow closes; what it had not yet sent is in the log.
      detail = await o.daemon.get<SessionDetail>(sessionPath(o.sessionId));
      if (detail.status !== 'running') {
        const rest = closedSessionFrames(o.daemon, o.sessionId, outcome.cursor);
        outcome = await followSession({ ...o, cursor: outcome.cursor, frames: rest, signal: interrupt.signal, out: ctx.out, err: ctx.err });
      }
    }
  } finally {
    process.off('SIGINT', onSigint);
  }
  const attach = `recur attach ${o.sessionId}${o.json ? ' --json' : ''}`;
  switch (outcome.kind) {
    case 'ended':
      clearCursor(o.config, o.sessionId);
      if (!o.json) printEnd(ctx, outcome.end);
      return finishRun({ ...o, err: ctx.err }, outcome.end, outcome.code);
    case 'detached':
      saveCursor(o.config, o.sessionId, outcome.cursor);
      ctx.err(`detached; ${o.sessionId} keeps running. Re-attach with: ${attach}`);
      return 130;
    case 'cut':
      saveCursor(o.config, o.sessionId, outcome.cursor);
      if (detail && detail.status !== 'running') throw new ExitError(1, `${o.sessionId} is ${detail.status} but logged no end event (SessionCompleted or SessionFailed); see \`recur logs ${o.sessionId}\` and the worker log`);
      throw new ExitError(1, `the event stream closed before ${o.sessionId} ended (did the daemon stop?); re-attach with: ${attach}`);
  }
}

/** The whole answer (the event line shows its first line only), or why the session failed. */
function printEnd(ctx: CommandContext, end: StoredEvent): void {
  const e = end.event;
  if (e.type === 'SessionCompleted') {
    ctx.out('');
    ctx.out(e.answer);
    if (e.answerBlob) ctx.err(`(answer truncated; the full text is blob ${e.answerBlob.sha256})`);
  } else if (e.type === 'SessionFailed') {
    ctx.err(`session failed (${e.kind}): ${e.reason}`);
  }
}
