import type { CommandContext } from '../cli';
import { up } from './up';

/** Recur's main job on the embedded default: the stack up and healthy. */
export async function demo(ctx: CommandContext): Promise<number> {
  return up(ctx);
}
