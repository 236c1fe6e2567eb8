import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { SessionDetail } from '../../daemon/api-types';
import type { CommandContext } from '../cli';
import { loadCursor } from '../cursor-file';
import { connectDaemon, sessionPath } from '../daemon-client';
import { streamSession } from '../stream-session';

/** Resumes a session's stream where the last detach left it (from the start when there is no saved cursor). */
export async function attach(ctx: CommandContext): Promise<number> {
  const [sessionId, ...extra] = ctx.args;
  if (!sessionId || extra.length > 0) throw new ExitError(2, 'usage: recur attach <session-id> [--json]');
  const config = loadConfig();
  const daemon = connectDaemon(config);
  const detail = await daemon.get<SessionDetail>(sessionPath(sessionId));
  return streamSession(ctx, { config, daemon, sessionId, cursor: loadCursor(config, sessionId), json: ctx.flags.json === true }, detail);
}
