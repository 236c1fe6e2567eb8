import type { SessionLimits } from './session-types';
import type { TreeBudget } from './tree-ledger';

export interface BudgetStop {
  kind: 'max_turns' | 'budget';
  reason: string;
  /** Whose limit: this session's own (turns, a goal's budget), the tree's, or a slice the session falls under. */
  scope: 'session' | 'tree' | 'slice';
}

/** Whether the session may take another model turn by its own turn cap; a stop says so in words. */
export function checkTurns(turn: number, maxTurns: number): BudgetStop | null {
  if (turn < maxTurns) return null;
  return { kind: 'max_turns', scope: 'session', reason: `turn limit reached: ${turn} of ${maxTurns} model turns used (this session's cap, RECUR_MAX_TURNS or the spec's maxTurns)` };
}

/** The tree's budget, from the root's limits. */
export function treeBudgetOf(limits: Pick<SessionLimits, 'maxTokens' | 'maxSeconds' | 'maxCostUsd' | 'maxTreeTurns'>): TreeBudget {
  return { tokens: limits.maxTokens, costUsd: limits.maxCostUsd ?? null, seconds: limits.maxSeconds, turns: limits.maxTreeTurns ?? null };
}

/** Failure kinds the log knows, from the error type an activity failed with. */
export function failureKind(errorType: string | undefined): 'script_exhausted' | 'model_error' {
  return errorType === 'ScriptExhaustedError' ? 'script_exhausted' : 'model_error';
}
