import { RANGES, inRange } from '../../config';
import { ExitError } from '../../errors';
import type { SessionLimits } from '../../workflows/session-types';
import type { CommandContext } from './command-context';

/** `recur run`'s tree budget flags: what the whole session tree may spend (docs/budgets.md). */
export const BUDGET_OPTIONS = {
  'budget-tokens': { type: 'string' },
  'budget-usd': { type: 'string' },
  'budget-seconds': { type: 'string' },
  'budget-turns': { type: 'string' },
} as const;

export const BUDGET_USAGE = '[--budget-tokens N] [--budget-usd X] [--budget-seconds S] [--budget-turns N]';

const FLAG_LIMIT = {
  'budget-tokens': 'maxTokens', 'budget-usd': 'maxCostUsd', 'budget-seconds': 'maxSeconds', 'budget-turns': 'maxTreeTurns',
} as const;

/** The limits the budget flags set; a flag out of its range is an error naming the range, never clamped. */
export function budgetLimits(flags: CommandContext['flags']): Partial<SessionLimits> {
  const out: Partial<SessionLimits> = {};
  for (const [flag, key] of Object.entries(FLAG_LIMIT) as [keyof typeof FLAG_LIMIT, (typeof FLAG_LIMIT)[keyof typeof FLAG_LIMIT]][]) {
    const v = flags[flag];
    if (v === undefined) continue;
    const n = Number(v);
    const range = RANGES[key];
    if (!inRange(range, n)) throw new ExitError(2, `--${flag} must be ${range.integer ? 'an integer' : 'a number'} from ${range.min} to ${range.max}, got "${String(v)}"`);
    out[key] = n;
  }
  return out;
}
