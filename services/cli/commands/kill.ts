import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { CommandContext } from '../command-context';
import { connectDaemon, sessionPath, type DaemonClient } from '../daemon-client';

/**
 * Ends a session for good; its workflow cancels its children and logs its end: SessionFailed
 * (cancelled) mid-way through its first round, or, for a root that stayed open after an answer,
 * the round's TaskEnded (if one was under way) and then SessionClosed.
 */
export async function kill(ctx: CommandContext): Promise<number> {
  const [sessionId, ...extra] = ctx.args;
  if (!sessionId || extra.length > 0) throw new ExitError(2, 'usage: recur kill <session-id>');
  await killSession(connectDaemon(loadConfig()), sessionId);
  ctx.out(killedText(sessionId));
  return 0;
}

export async function killSession(daemon: DaemonClient, sessionId: string): Promise<void> {
  await daemon.post(sessionPath(sessionId, 'kill'), {});
}

export const killedText = (sessionId: string): string =>
  `cancellation of ${sessionId} requested; it logs its end (SessionFailed, or SessionClosed for a root that stayed open) as it stops`;
