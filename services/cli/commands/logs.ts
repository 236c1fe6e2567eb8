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
  const daemon = connectDaemon(loadConfig());
  let page = await daemon.get<LogReply>(sessionPath(sessionId, 'log'));
  for (const p of page.problems) {
    if (ctx.flags.json) ctx.out(JSON.stringify(p));
    else ctx.err(formatProblemLine(p));
  }
  let printed = 0;
  for (;;) {
    for (const e of page.events) ctx.out(ctx.flags.json ? JSON.stringify(e) : formatEventLine(e));
    printed += page.events.length;
    if (!page.more) break;
    page = await daemon.get<LogReply>(`${sessionPath(sessionId, 'log')}?after=${encodeURIComponent(JSON.stringify(page.nextCursor))}`);
  }
  if (printed === 0 && !ctx.flags.json) ctx.err(`no events logged for ${sessionId}`);
  return 0;
}
