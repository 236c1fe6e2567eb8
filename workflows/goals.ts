import type { Goal, GoalSpec } from './long-run-types';
import type { GoalChanged } from '../schemas/generated/events';
import { HARD } from '../schemas/field-limits';

/** Longest objective accepted; a goal is re-presented every turn, so it must stay small. */
export const MAX_OBJECTIVE_CHARS = HARD.objective;

/** Why a spec cannot be a goal, or null when it can. Pure. */
export function checkGoalSpec(spec: GoalSpec): string | null {
  if (typeof spec.objective !== 'string' || spec.objective.trim() === '') return 'a goal needs a non-empty objective';
  if (spec.objective.length > MAX_OBJECTIVE_CHARS) return `the objective is ${spec.objective.length} characters; the limit is ${MAX_OBJECTIVE_CHARS}`;
  for (const [k, v] of [['tokenBudget', spec.tokenBudget], ['secondsBudget', spec.secondsBudget], ['costBudgetUsd', spec.costBudgetUsd]] as const) {
    if (v !== null && !(typeof v === 'number' && v > 0)) return `${k} must be a positive number or null`;
  }
  return null;
}

export function newGoal(spec: GoalSpec, now: number): Goal {
  return { ...spec, objective: spec.objective.trim(), status: 'active', tokensUsed: 0, costUsd: 0, setAt: now };
}

/** Which of the goal's budgets is spent, in words; null while all hold. Pure. */
export function goalBudgetStop(g: Goal, now: number): string | null {
  if (g.tokenBudget !== null && g.tokensUsed >= g.tokenBudget) return `goal token budget spent: ${g.tokensUsed} of ${g.tokenBudget} tokens`;
  if (g.costBudgetUsd !== null && g.costUsd >= g.costBudgetUsd) return `goal cost budget spent: $${g.costUsd.toFixed(4)} of $${g.costBudgetUsd}`;
  const secs = Math.floor((now - g.setAt) / 1000);
  if (g.secondsBudget !== null && secs >= g.secondsBudget) return `goal time budget spent: ${secs}s of ${g.secondsBudget}s`;
  return null;
}

/**
 * Whether `by` may end (complete), pause or clear the goal: an open-ended goal has no end state,
 * so the agent may do none of these; an operator may.
 */
export function checkGoalStop(g: Goal | null, action: 'complete' | 'pause' | 'clear', by: 'agent' | 'operator'): string | null {
  if (!g || g.status === 'cleared' || g.status === 'complete' || g.status === 'budget_limited') return 'there is no open goal';
  if (g.openEnded && by === 'agent') {
    const what = action === 'complete' ? 'marked complete' : action === 'pause' ? 'paused' : 'cleared';
    return `this goal is open-ended: it has no end state, so the agent cannot have it ${what}; keep improving on it`;
  }
  return null;
}

export function goalEvent(g: Goal, change: GoalChanged['change'], now: number, reason: string | null = null): GoalChanged {
  return {
    type: 'GoalChanged', change, objective: g.objective, openEnded: g.openEnded, status: g.status,
    tokenBudget: g.tokenBudget, secondsBudget: g.secondsBudget, costBudgetUsd: g.costBudgetUsd,
    tokensUsed: g.tokensUsed, costUsd: g.costUsd, secondsUsed: Math.floor((now - g.setAt) / 1000), reason,
  };
}

function budgetLine(g: Goal, now: number): string {
  const parts = [`tokens ${g.tokensUsed}${g.tokenBudget !== null ? ` / ${g.tokenBudget}` : ''}`];
  if (g.costBudgetUsd !== null) parts.push(`cost $${g.costUsd.toFixed(4)} / $${g.costBudgetUsd}`);
  parts.push(`time ${Math.floor((now - g.setAt) / 1000)}s${g.secondsBudget !== null ? ` / ${g.secondsBudget}s` : ''}`);
  return parts.join(', ');
}

/** The message that keeps an agent going when it ends a turn while its goal is open. */
export function goalContinuationText(g: Goal, now: number): string {
  const end = g.openEnded
    ? 'This goal is open-ended: it is never finished. Keep improving on your best result; do not stop or ask for input.'
    : 'Audit your work against the objective. If it is fully met, call goal.complete("<evidence>") in Python; otherwise continue working. Treat completion as unproven until you have checked it.';
  return `[goal] Continue working toward the active goal.\nObjective: ${g.objective}\nBudget: ${budgetLine(g, now)}\n${end}`;
}

/** The turn cap of a goal run without autonomous mode, in the words the CLI and the log use. */
export const goalTurnCapText = (maxTurns: number): string =>
  `turn cap: this goal run stops after ${maxTurns} model turns (RECUR_MAX_TURNS) with a wrap-up turn if the goal is not met by then; --autonomous runs use the autonomous limits instead`;
