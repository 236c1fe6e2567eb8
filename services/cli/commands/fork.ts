import { resolve } from 'node:path';
import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { ForkSessionReply, ForkSessionRequest } from '../../daemon/api-types';
import type { CommandContext } from '../command-context';
import { connectDaemon, sessionPath } from '../daemon-client';
import { streamSession } from '../stream-session';
import { ciEnabled, ciOptions, withCiExit } from '../ci/ci-flags';
import { recordSessionOutput } from '../ci/finish-run';
import { resolveModel, retainsRoot } from './run';

const USAGE = 'usage: recur fork <session-id> --at <seq> ["<new instruction>"] [--model <provider/model|scripted:file>] [--cwd DIR] [--once] [--detach] [--json]';

/** `recur fork`: a new root whose history is the session's up to --at (docs/fork.md); followed like `recur run` unless --detach. */
export const fork = (ctx: CommandContext): Promise<number> => withCiExit(ciEnabled(ctx.flags), () => forkAndFollow(ctx));

async function forkAndFollow(ctx: CommandContext): Promise<number> {
  const [originId, instruction, ...extra] = ctx.args;
  const at = typeof ctx.flags.at === 'string' && /^\d+$/.test(ctx.flags.at.trim()) ? Number(ctx.flags.at) : NaN;
  if (!originId || extra.length > 0 || Number.isNaN(at)) throw new ExitError(2, USAGE);
  const json = ctx.flags.json === true;
  const config = loadConfig();
  const ci = ciOptions(ctx.flags, config);
  if (ctx.flags.detach && (ci.junit || ci.summary)) throw new ExitError(2, '--junit and --summary wait for the end: drop --detach, or pass them to `recur attach <id>` later');
  const body: ForkSessionRequest = {
    at,
    ...(instruction !== undefined && { instruction }),
    ...(typeof ctx.flags.model === 'string' && { model: resolveModel(ctx.flags.model, undefined, process.cwd()) }),
    // Like a run, the fork works where it was started unless told otherwise.
    cwd: resolve(process.cwd(), typeof ctx.flags.cwd === 'string' ? ctx.flags.cwd : '.'),
    ...(!retainsRoot(ctx.flags) && { retain: false }),
  };
  const daemon = connectDaemon(config);
  const reply = await daemon.post<ForkSessionReply>(sessionPath(originId, 'fork'), body);
  const { sessionId, forkedFrom } = reply;
  recordSessionOutput(ci, sessionId);
  if (ctx.flags.detach) {
    ctx.out(json ? JSON.stringify({ sessionId, forkedFrom }) : sessionId);
    return 0;
  }
  if (!json) ctx.err(`session ${sessionId} forked from ${forkedFrom.sessionId} at #${forkedFrom.seq}; ${ci.enabled ? 'CI mode' : 'Ctrl-C detaches (the session keeps running)'}`);
  return streamSession(ctx, { config, daemon, sessionId, cursor: {}, json, ci });
}
