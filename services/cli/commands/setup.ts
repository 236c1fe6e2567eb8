import { loadConfig } from '../../../config';
import { ensureTools } from '../../devstack';
import type { CommandContext } from '../cli';

export async function setup(ctx: CommandContext): Promise<number> {
  const config = loadConfig();
  ensureTools(config, ctx.err, { force: Boolean(ctx.flags.force) });
  ctx.out(`tools ready in ${config.toolsDir}`);
  return 0;
}
