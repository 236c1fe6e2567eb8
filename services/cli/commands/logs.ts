import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { LogReply } from '../../daemon/api-types';
import type { CommandContext } from '../cli';
import { connectDaemon, sessionPath } from '../daemon-client';
import { formatEventLine, formatProblemLine } from '../format-event';

/** Everything the session tree has logged so far, session by session, each in seq order; does not follow. */
export async function logs(ctx: CommandContext): Promise<number> {
  const [sessionId, ...extra] = ctx.args;
  if (!sessionId || extra.length > 0) throw new ExitError(2, 'usage: recur logs <session-id> [--json]');
  const { events, problems } = await connectDaemon(loadConfig()).get<LogReply>(sessionPath(sessionId, 'log'));
  for (const p of problems) {
    if (ctx.flags.json) ctx.out(JSON.stringify(p));
    else ctx.err(formatProblemLine(p));
  }
  for (const e of events) ctx.out(ctx.flags.json ? JSON.stringify(e) : formatEventLine(e));
  if (events.length === 0 && !ctx.flags.json) ctx.err(`no events logged for ${sessionId}`);
  return 0;
}
