import type { RecurConfig } from '../../config';
import { ExitError } from '../../errors';
import type { StoredEvent } from '../../schemas';
import type { ProblemFrame, SessionDetail, StreamFrame } from '../daemon/api-types';
import { isPastCursor, type Cursor } from '../daemon/cursor';
import type { CommandContext } from './command-context';
import { clearCursor, saveCursor } from './cursor-file';
import { sessionPath, type DaemonClient } from './daemon-client';
import { eventFrames } from './event-frames';
import { followSession, type FollowOutcome } from './follow-session';
import { treeLogPages } from './tree-log';
import { lastEndOf, type FollowEnd } from './turn-end';
import type { CiOptions } from './ci/ci-flags';
import { finishRun } from './ci/finish-run';

export interface StreamSessionOptions {
  config: RecurConfig;
  daemon: DaemonClient;
  sessionId: string;
  cursor: Cursor;
  json: boolean;
  /** Reports to write and the exit codes to use once the session ends. */
  ci: CiOptions;
  /** Where following a running session stops (turn-end.ts); by default the root's first end of a round. */
  ends?: FollowEnd;
}

/**
 * A closed session's remaining events come from the bounded log read: a live stream would never
 * end without an end event. They end at the root's last end in the log.
 */
export async function closedSessionFrames(daemon: DaemonClient, sessionId: string, cursor: Cursor): Promise<{ frames: StreamFrame[]; ends: FollowEnd }> {
  const events: StoredEvent[] = [];
  let problems: ProblemFrame[] = [];
  for await (const page of treeLogPages(daemon, sessionId)) {
    events.push(...page.events);
    // Every page carries the problems.
    problems = page.problems;
  }
  return { frames: [...problems, ...events.filter((e) => isPastCursor(cursor, e.sessionId, e.seq))], ends: lastEndOf(events, sessionId) };
}

async function* each<T>(items: readonly T[]): AsyncGenerator<T> {
  yield* items;
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
    const follow = async (cursor: Cursor, frames: AsyncIterable<StreamFrame>, ends = o.ends) =>
      followSession({ ...o, cursor, frames, ends, signal: interrupt.signal, out: ctx.out, err: ctx.err });
    if (closed) {
      const log = await closedSessionFrames(o.daemon, o.sessionId, o.cursor);
      outcome = await follow(o.cursor, each(log.frames), log.ends);
    } else {
      outcome = await follow(o.cursor, eventFrames(o.daemon, o.sessionId, o.cursor, interrupt.signal));
    }
    if (outcome.kind === 'cut' && !closed) {
      // The daemon ends a live stream when the session's workflow closes; what it had not yet sent is in the log.
      detail = await o.daemon.get<SessionDetail>(sessionPath(o.sessionId));
      if (detail.status !== 'running') {
        const rest = await closedSessionFrames(o.daemon, o.sessionId, outcome.cursor);
        outcome = await follow(outcome.cursor, each(rest.frames), o.ends ?? rest.ends);
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
      if (detail && detail.status !== 'running') throw new ExitError(1, `${o.sessionId} is ${detail.status} but logged no end event (SessionCompleted, TaskEnded, SessionFailed or SessionClosed); see \`recur logs ${o.sessionId}\` and the worker log`);
      throw new ExitError(1, `the event stream closed before ${o.sessionId} ended (did the daemon stop?); re-attach with: ${attach}`);
  }
}

/** The whole answer (the event line shows its first line only), or why the session or its round failed. */
function printEnd(ctx: CommandContext, end: StoredEvent): void {
  const e = end.event;
  if (e.type === 'SessionCompleted' || (e.type === 'TaskEnded' && e.status === 'completed')) {
    ctx.out('');
    // A long round answer is a preview whose end names its blob.
    ctx.out(e.answer ?? '');
    if (e.type === 'SessionCompleted' && e.answerBlob) ctx.err(`(answer truncated; the full text is blob ${e.answerBlob.sha256})`);
  } else if (e.type === 'TaskEnded') {
    ctx.err(`round ${e.round} ${e.status}: ${e.reason ?? ''}`);
  } else if (e.type === 'SessionFailed') {
    ctx.err(`session failed (${e.kind}): ${e.reason}`);
  } else if (e.type === 'SessionClosed') {
    ctx.err(`session closed after round ${e.round}: ${e.reason}`);
  }
}
