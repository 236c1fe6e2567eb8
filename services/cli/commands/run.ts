import { resolve } from 'node:path';
import { loadConfig, type RecurConfig } from '../../../config';
import { ExitError } from '../../../errors';
import type { StartSessionReply, StartSessionRequest } from '../../daemon/api-types';
import type { CommandContext } from '../command-context';
import { connectDaemon, type DaemonClient } from '../daemon-client';
import { streamSession } from '../stream-session';
import { longRunRequest } from '../long-run-flags';
import { ciEnabled, ciOptions, withCiExit } from '../ci/ci-flags';
import { recordSessionOutput } from '../ci/finish-run';
import { budgetLimits } from '../budget-flags';
import { backupRequest } from '../backup-flags';
import { goalTurnCapText } from '../../../workflows/goals';

/**
 * The model for a new session: the flag, else the configured default (RECUR_MODEL). A scripted file is made absolute here,
 * since the daemon does not run in the caller's directory.
 */
export function resolveModel(flag: string | undefined, envModel: string | undefined, cwd: string): string {
  const model = flag || envModel;
  if (!model) throw new ExitError(2, 'no model: pass --model <provider>/<model> (or scripted:<file>), or set RECUR_MODEL');
  return model.startsWith('scripted:') ? `scripted:${resolve(cwd, model.slice('scripted:'.length))}` : model;
}

/** `--generators a,b`: the models, a scripted file made absolute as --model's is; the daemon checks each. */
export const generatorModels = (flag: string, cwd: string): string[] =>
  flag.split(',').map((m) => m.trim()).map((m) => (m.startsWith('scripted:') ? resolveModel(m, undefined, cwd) : m));

/** In CI mode (--ci, or CI=true) every way the run could not happen or be followed exits 3 (docs/ci.md). */
export const run = (ctx: CommandContext): Promise<number> => withCiExit(ciEnabled(ctx.flags), () => startAndFollow(ctx));

async function startAndFollow(ctx: CommandContext): Promise<number> {
  const [task, ...extra] = ctx.args;
  if (!task || extra.length > 0) throw new ExitError(2, 'usage: recur run "<task>" [--model <provider/model|scripted:file>] [--net none|full|allow:HOST[:PORT],…] [--cwd DIR] [--research TASK [--knowledge TIER] [--generators MODEL[,MODEL…]]] [--once] [--detach] [--json]');
  const json = ctx.flags.json === true;
  const config = loadConfig();
  const ci = ciOptions(ctx.flags, config);
  // A detached run has no end to report on: `recur attach <id> --junit …` waits for it and writes them.
  if (ctx.flags.detach && (ci.junit || ci.summary)) throw new ExitError(2, '--junit and --summary wait for the end: drop --detach, or pass them to `recur attach <id>` later');
  const daemon = connectDaemon(config);
  const sessionId = await startRootSession(ctx, task, config, daemon);
  recordSessionOutput(ci, sessionId);
  if (ctx.flags.detach) {
    ctx.out(json ? JSON.stringify({ sessionId }) : sessionId);
    return 0;
  }
  if (!json) ctx.err(`session ${sessionId} started; ${ci.enabled ? 'CI mode' : 'Ctrl-C detaches (the session keeps running)'}`);
  const code = await streamSession(ctx, { config, daemon, sessionId, cursor: {}, json, ci });
  if (code === 0 && retainsRoot(ctx.flags) && !json) ctx.err(`${sessionId} stays open: recur send ${sessionId} "<follow-up>" --wait continues it, recur kill ${sessionId} ends it`);
  return code;
}

/** A CI job ends with its answer (and stops the stack); so does a run the user wants done with (--once). Any other root stays open. */
export const retainsRoot = (flags: CommandContext['flags']): boolean => !ciEnabled(flags) && flags.once !== true;

/** Starts a root session on `task` from `recur run`'s flags (model, name, net, cwd, long-run, budgets); `recur chat` starts one the same way. */
export async function startRootSession(ctx: CommandContext, task: string, config: RecurConfig, daemon: DaemonClient): Promise<string> {
  // The tree works where it was started unless told otherwise; its gates run there too.
  const cwd = resolve(process.cwd(), typeof ctx.flags.cwd === 'string' ? ctx.flags.cwd : '.');
  const model = resolveModel(ctx.flags.model as string | undefined, config.agent.model ?? undefined, process.cwd());
  const backup = backupRequest(ctx.flags, config, (spec) => resolveModel(spec, undefined, process.cwd()));
  const body: StartSessionRequest = {
    task,
    model,
    ...(backup && { backup }),
    ...(typeof ctx.flags.name === 'string' ? { name: ctx.flags.name } : {}),
    ...(typeof ctx.flags.net === 'string' ? { net: ctx.flags.net } : {}),
    cwd,
    ...(typeof ctx.flags.research === 'string' ? { research: ctx.flags.research } : {}),
    ...(typeof ctx.flags.knowledge === 'string' ? { knowledge: ctx.flags.knowledge } : {}),
    ...(typeof ctx.flags.generators === 'string' ? { generators: generatorModels(ctx.flags.generators, process.cwd()) } : {}),
    ...longRunRequest(ctx.flags, cwd),
    ...(!retainsRoot(ctx.flags) && { retain: false }),
    ...(ciEnabled(ctx.flags) && { ci: true }),
  };
  const limits = budgetLimits(ctx.flags);
  if (Object.keys(limits).length > 0) body.limits = limits;
  const { sessionId, maxTurns } = await daemon.post<StartSessionReply>('/v1/sessions', body);
  // Stated up front (on stderr, so --json output stays one object a line): without --autonomous,
  // a goal run's turn cap is its only end short of the goal.
  if (body.goal && !body.autonomous) ctx.err(goalTurnCapText(maxTurns));
  return sessionId;
}
