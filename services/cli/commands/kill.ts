import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { CommandContext } from '../cli';
import { connectDaemon, sessionPath } from '../daemon-client';

/**
 * Ends a session for good; its workflow cancels its children and logs its end: SessionFailed
 * (cancelled) mid-way through its first round, or, for a root that stayed open after an answer,
 * the round's TaskEnded (if one was under way) and then SessionClosed.
 */
export async function kill(ctx: CommandContext): Promise<number> {
  const [sessionId, ...extra] = ctx.args;
  if (!sessionId || extra.length > 0) throw new ExitError(2, 'usage: recur kill <session-id>');
  await connectDaemon(loadConfig()).post(sessionPath(sessionId, 'kill'), {});
  ctx.out(`cancellation of ${sessionId} requested; it logs its end (SessionFailed, or SessionClosed for a root that stayed open) as it stops`);
  return 0;
}
