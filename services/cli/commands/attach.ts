import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { SessionDetail } from '../../daemon/api-types';
import type { CommandContext } from '../command-context';
import { loadCursor } from '../cursor-file';
import { connectDaemon, sessionPath } from '../daemon-client';
import { streamSession } from '../stream-session';
import { endOfRound } from '../turn-end';
import { ciEnabled, ciOptions, withCiExit } from '../ci/ci-flags';

/**
 * Resumes a session's stream where the last detach left it (from the start when there is no
 * saved cursor), until the root's current round ends (a root idling after an answer: the end of
 * the round it last finished). With the CI flags it is how a detached CI run is waited for: the same exit
 * codes and reports as `recur run --ci` (an ended session gives them at once).
 */
export const attach = (ctx: CommandContext): Promise<number> => withCiExit(ciEnabled(ctx.flags), () => follow(ctx));

async function follow(ctx: CommandContext): Promise<number> {
  const [sessionId, ...extra] = ctx.args;
  if (!sessionId || extra.length > 0) throw new ExitError(2, 'usage: recur attach <session-id> [--json]');
  const config = loadConfig();
  const ci = ciOptions(ctx.flags, config);
  const daemon = connectDaemon(config);
  const detail = await daemon.get<SessionDetail>(sessionPath(sessionId));
  // A root that stays open after its answers: follow to the end of the round it is in (or last finished).
  const ends = endOfRound(sessionId, detail.live?.round ?? 0);
  return streamSession(ctx, { config, daemon, sessionId, cursor: loadCursor(config, sessionId), json: ctx.flags.json === true, ci, ends }, detail);
}
