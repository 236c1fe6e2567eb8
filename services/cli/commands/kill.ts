import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { CommandContext } from '../cli';
import { connectDaemon, sessionPath } from '../daemon-client';

/** Cancels a session; its workflow logs SessionFailed (cancelled) and cancels its running children. */
export async function kill(ctx: CommandContext): Promise<number> {
  const [sessionId, ...extra] = ctx.args;
  if (!sessionId || extra.length > 0) throw new ExitError(2, 'usage: recur kill <session-id>');
  await connectDaemon(loadConfig()).post(sessionPath(sessionId, 'kill'), {});
  ctx.out(`cancellation of ${sessionId} requested; it logs SessionFailed (cancelled) as it stops`);
  return 0;
}
