import { ExitError } from '../../errors';
import type { StartSessionRequest } from '../daemon/api-types';
import type { CommandContext } from './command-context';

/** `recur run`'s goal and autonomous flags, as the options table parseArgs takes. */
export const LONG_RUN_OPTIONS = {
  goal: { type: 'string' },
  'open-ended': { type: 'boolean' },
  'goal-token-budget': { type: 'string' },
  'goal-seconds': { type: 'string' },
  'goal-cost-usd': { type: 'string' },
  autonomous: { type: 'boolean' },
  gate: { type: 'string', multiple: true },
} as const;

export const LONG_RUN_USAGE = '[--goal "<objective>" [--open-ended] [--goal-token-budget N] [--goal-seconds N] [--goal-cost-usd N]] [--autonomous [--gate "<cmd>"]...]';

function positive(flags: CommandContext['flags'], name: string): number | undefined {
  const v = flags[name];
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!(n > 0)) throw new ExitError(2, `--${name} must be a positive number, got "${String(v)}"`);
  return n;
}

/** The goal and autonomous parts of a start request; a gate or goal sub-flag alone is an error, not ignored. */
export function longRunRequest(flags: CommandContext['flags'], cwd: string): Pick<StartSessionRequest, 'goal' | 'autonomous'> {
  const out: Pick<StartSessionRequest, 'goal' | 'autonomous'> = {};
  const goalFlags = ['open-ended', 'goal-token-budget', 'goal-seconds', 'goal-cost-usd'].filter((k) => flags[k] !== undefined);
  if (typeof flags.goal === 'string') {
    out.goal = {
      objective: flags.goal, openEnded: flags['open-ended'] === true,
      tokenBudget: positive(flags, 'goal-token-budget') ?? null, secondsBudget: positive(flags, 'goal-seconds') ?? null,
      costBudgetUsd: positive(flags, 'goal-cost-usd') ?? null,
    };
  } else if (goalFlags.length) {
    throw new ExitError(2, `--${goalFlags[0]} needs --goal "<objective>"`);
  }
  const gates = (flags.gate as unknown as string[] | undefined) ?? [];
  if (flags.autonomous === true) out.autonomous = { gates, gateCwd: cwd };
  else if (gates.length) throw new ExitError(2, '--gate needs --autonomous');
  return out;
}
