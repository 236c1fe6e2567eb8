import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { CommandContext } from '../command-context';
import { connectDaemon } from '../daemon-client';
import { formatEventLine, formatProblemLine } from '../format-event';
import { treeLogPages } from '../tree-log';

/** Everything the session tree has logged so far, session by session, each in seq order; does not follow. */
export async function logs(ctx: CommandContext): Promise<number> {
  const [sessionId, ...extra] = ctx.args;
  if (!sessionId || extra.length > 0) throw new ExitError(2, 'usage: recur logs <session-id> [--json]');
  const daemon = connectDaemon(loadConfig());
  let printed = 0;
  let first = true;
  for await (const page of treeLogPages(daemon, sessionId)) {
    // Every page carries the problems; print them once.
    for (const p of first ? page.problems : []) {
      if (ctx.flags.json) ctx.out(JSON.stringify(p));
      else ctx.err(formatProblemLine(p));
    }
    first = false;
    for (const e of page.events) ctx.out(ctx.flags.json ? JSON.stringify(e) : formatEventLine(e));
    printed += page.events.length;
  }
  if (printed === 0 && !ctx.flags.json) ctx.err(`no events logged for ${sessionId}`);
  return 0;
}
