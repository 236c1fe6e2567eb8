import { resolve } from 'node:path';
import { loadConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { StartSessionReply, StartSessionRequest } from '../../daemon/api-types';
import type { CommandContext } from '../cli';
import { connectDaemon } from '../daemon-client';
import { streamSession } from '../stream-session';
import { longRunRequest } from '../long-run-flags';

/**
 * The model for a new session: the flag, else the configured default (RECUR_MODEL). A scripted file is made absolute here,
 * since the daemon does not run in the caller's directory.
 */
export function resolveModel(flag: string | undefined, envModel: string | undefined, cwd: string): string {
  const model = flag || envModel;
  if (!model) throw new ExitError(2, 'no model: pass --model <provider>/<model> (or scripted:<file>), or set RECUR_MODEL');
  return model.startsWith('scripted:') ? `scripted:${resolve(cwd, model.slice('scripted:'.length))}` : model;
}

export async function run(ctx: CommandContext): Promise<number> {
  const [task, ...extra] = ctx.args;
  if (!task || extra.length > 0) throw new ExitError(2, 'usage: recur run "<task>" [--model <provider/model|scripted:file>] [--net none|full|allow:HOST[:PORT],…] [--cwd DIR] [--detach] [--json]');
  const json = ctx.flags.json === true;
  const config = loadConfig();
  // The tree works where it was started unless told otherwise; its gates run there too.
  const cwd = resolve(process.cwd(), typeof ctx.flags.cwd === 'string' ? ctx.flags.cwd : '.');
  const body: StartSessionRequest = {
    task,
    model: resolveModel(ctx.flags.model as string | undefined, config.agent.model ?? undefined, process.cwd()),
    ...(typeof ctx.flags.name === 'string' ? { name: ctx.flags.name } : {}),
    ...(typeof ctx.flags.net === 'string' ? { net: ctx.flags.net } : {}),
    cwd,
    ...longRunRequest(ctx.flags, cwd),
  };
  const daemon = connectDaemon(config);
  const { sessionId } = await daemon.post<StartSessionReply>('/v1/sessions', body);
  if (ctx.flags.detach) {
    ctx.out(json ? JSON.stringify({ sessionId }) : sessionId);
    return 0;
  }
  if (!json) ctx.err(`session ${sessionId} started; Ctrl-C detaches (the session keeps running)`);
  return streamSession(ctx, { config, daemon, sessionId, cursor: {}, json });
}
