import { loadConfig } from '../../../config';
import { ensureChromium, ensureTools } from '../../devstack';
import type { CommandContext } from '../command-context';

export async function setup(ctx: CommandContext): Promise<number> {
  const config = loadConfig();
  ensureTools(config, ctx.err, { force: Boolean(ctx.flags.force) });
  // Only the viewer's browser tests and bench need it (`npm test` asks for it).
  if (ctx.flags.browser) ensureChromium(config, ctx.err);
  ctx.out(`tools ready in ${config.toolsDir}`);
  return 0;
}
