import { loadConfig } from '../../../config';
import { ensureChromium, ensureSlurm, ensureTimeSkippingServer, ensureTools } from '../../devstack';
import type { CommandContext } from '../command-context';

export async function setup(ctx: CommandContext): Promise<number> {
  const config = loadConfig();
  ensureTools(config, ctx.err, { force: Boolean(ctx.flags.force) });
  // Only the viewer's browser tests and bench need it (`npm test` asks for it).
  if (ctx.flags.browser) ensureChromium(config, ctx.err);
  // A one-node Slurm, running: the Slurm job executor's tests need it (`npm test` asks for it).
  if (ctx.flags.slurm) ensureSlurm(ctx.err);
  // Temporal's time-skipping server: the virtual executor's long-horizon tests run on it (`npm test` asks for it).
  if (ctx.flags['virtual-clock']) ensureTimeSkippingServer(config, ctx.err);
  ctx.out(`tools ready in ${config.toolsDir}`);
  return 0;
}
