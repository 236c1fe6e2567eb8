import { loadConfig } from '../../../config';
import { up as stackUp } from '../../devstack';
import type { CommandContext } from '../command-context';
import { formatStatus } from './status';

export async function up(ctx: CommandContext): Promise<number> {
  const config = loadConfig();
  const t0 = Date.now();
  const services = await stackUp(config, ctx.err);
  for (const line of formatStatus(services)) ctx.out(line);
  ctx.out(`stack up in ${((Date.now() - t0) / 1000).toFixed(1)}s (home ${config.home})`);
  return 0;
}
