import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { CompactReply, InterruptReply, SwitchModelReply } from '../../daemon/api-types';
import type { CommandContext } from '../command-context';
import { connectDaemon, sessionPath } from '../daemon-client';
import { resolveModel } from './run';

/*
 * An operator's controls of a running session, one route each (docs/conversations.md); `recur chat`
 * calls the same routes.
 */

function oneSession(ctx: CommandContext, usage: string): string {
  const [sessionId, ...extra] = ctx.args;
  if (!sessionId || extra.length > 0) throw new ExitError(2, usage);
  return sessionId;
}

/** Interrupts the running cell; the session goes on, and its model reads that the operator interrupted it. */
export async function interrupt(ctx: CommandContext): Promise<number> {
  const sessionId = oneSession(ctx, 'usage: recur interrupt <session-id> [--json]');
  const reply = await connectDaemon(loadConfig()).post<InterruptReply>(sessionPath(sessionId, 'interrupt'), {});
  ctx.out(ctx.flags.json ? JSON.stringify({ sessionId, ...reply }) : reply.interrupted ? `interrupted the running cell of ${sessionId}` : `no cell of ${sessionId} was running; nothing interrupted`);
  return 0;
}

/** Switches the model of the session's next calls (logged as ModelSwitched). */
export async function model(ctx: CommandContext): Promise<number> {
  const [sessionId, spec, ...extra] = ctx.args;
  if (!sessionId || !spec || extra.length > 0) throw new ExitError(2, 'usage: recur model <session-id> <provider/model|scripted:file> [--json]');
  const reply = await connectDaemon(loadConfig()).post<SwitchModelReply>(sessionPath(sessionId, 'model'), { model: resolveModel(spec, undefined, process.cwd()) });
  ctx.out(ctx.flags.json ? JSON.stringify({ sessionId, ...reply }) : `${sessionId} uses ${reply.model} from its next model call`);
  return 0;
}

/** Makes the session's next model call compact its transcript first (Compacted, manual). */
export async function compact(ctx: CommandContext): Promise<number> {
  const sessionId = oneSession(ctx, 'usage: recur compact <session-id> [--json]');
  const reply = await connectDaemon(loadConfig()).post<CompactReply>(sessionPath(sessionId, 'compact'), {});
  ctx.out(ctx.flags.json ? JSON.stringify({ sessionId, ...reply }) : `${sessionId} compacts its transcript at its next model call`);
  return 0;
}
