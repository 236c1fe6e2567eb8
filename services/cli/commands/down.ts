import { loadConfig } from '../../../config';
import { down as stackDown } from '../../devstack';
import type { CommandContext } from '../command-context';

export async function down(ctx: CommandContext): Promise<number> {
  const stopped = await stackDown(loadConfig(), ctx.out);
  if (stopped.length === 0) ctx.out('nothing was running');
  return 0;
}
