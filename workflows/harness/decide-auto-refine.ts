import type { SessionInput } from '../session-types';

/** Auto-refine runs on root sessions only, every `autoRefineTurns` model turns (0 or unset: never). Pure. */
export function shouldAutoRefine(input: Pick<SessionInput, 'depth' | 'limits'>, turnsDone: number): boolean {
  const every = input.limits.autoRefineTurns ?? 0;
  return input.depth === 0 && every > 0 && turnsDone > 0 && turnsDone % every === 0;
}
