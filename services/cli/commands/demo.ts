import { copyFileSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type RecurConfig } from '../../../config';
import { ExitError } from '../../../errors';
import { repoRoot } from '../../home/repo-root';
import type { CommandContext } from '../command-context';
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
  const config = loadConfig();
  const model = (ctx.flags.model as string | undefined) ?? config.agent.model ?? demoScript(config);
  // The demo's agents work in a scratch directory, never in the directory it was started from (the checkout, for `npm run demo`).
  const cwd = (ctx.flags.cwd as string | undefined) ?? mkdtempSync(join(tmpdir(), 'recur-demo-'));
  return run({ ...ctx, args: [DEMO_TASK], flags: { ...ctx.flags, model, cwd } });
}

/** The demo's script, copied where the worker may read scripted files from (RECUR_SCRIPTED_DIRS). */
function demoScript(config: RecurConfig): string {
  const [scripts] = config.agent.scriptedDirs;
  if (!scripts) throw new ExitError(2, 'the scripted demo needs a directory in RECUR_SCRIPTED_DIRS (or pass --model)');
  mkdirSync(scripts, { recursive: true });
  const file = join(scripts, 'demo-pi-script.json');
  copyFileSync(join(repoRoot(), 'services', 'cli', 'demo', 'pi-script.json'), file);
  return `scripted:${file}`;
}
