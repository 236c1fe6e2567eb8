import type { SessionLimits } from './session-types';

export interface BudgetStop {
  kind: 'max_turns' | 'budget' | 'timeout';
  reason: string;
}

/** Whether the session may take another model turn; a stop says which limit ended it, in words. */
export function checkBudget(
  used: { turn: number; tokens: number; elapsedMs: number },
  limits: Pick<SessionLimits, 'maxTurns' | 'maxTokens' | 'maxSeconds'>,
): BudgetStop | null {
  if (used.turn >= limits.maxTurns) {
    return { kind: 'max_turns', reason: `turn limit reached: ${used.turn} of ${limits.maxTurns} model turns used` };
  }
  if (limits.maxTokens !== null && used.tokens >= limits.maxTokens) {
    return { kind: 'budget', reason: `token budget spent: ${used.tokens} of ${limits.maxTokens} tokens used` };
  }
  if (limits.maxSeconds !== null && used.elapsedMs >= limits.maxSeconds * 1000) {
    return { kind: 'timeout', reason: `time limit reached: ${Math.round(used.elapsedMs / 1000)}s of ${limits.maxSeconds}s` };
  }
  return null;
}

/** Failure kinds the log knows, from the error type an activity failed with. */
export function failureKind(errorType: string | undefined): 'script_exhausted' | 'model_error' {
  return errorType === 'ScriptExhaustedError' ? 'script_exhausted' : 'model_error';
}
