import { join } from 'node:path';
import { loadConfig } from '../../../config';
import { repoRoot } from '../../devstack';
import type { CommandContext } from '../cli';
import { run } from './run';
import { up } from './up';

export const DEMO_TASK = 'Estimate pi two independent ways in parallel sub-agents and combine the results.';

/**
 * Recur's main job on the embedded default: the local stack up, then a real multi-agent session
 * on it. The model is the configured default (RECUR_MODEL) when set, else a scripted model that plays a fixed demo.
 */
export async function demo(ctx: CommandContext): Promise<number> {
  const code = await up(ctx);
  if (code !== 0) return code;
  const scripted = `scripted:${join(repoRoot(), 'services', 'cli', 'demo', 'pi-script.json')}`;
  const model = (ctx.flags.model as string | undefined) ?? loadConfig().agent.model ?? scripted;
  return run({ ...ctx, args: [DEMO_TASK], flags: { ...ctx.flags, model } });
}
