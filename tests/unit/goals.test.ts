import { checkGoalSpec, checkGoalStop, goalBudgetStop, goalContinuationText, goalEvent, newGoal } from '../../workflows/goals';
import type { GoalSpec } from '../../workflows/long-run-types';

const spec = (more: Partial<GoalSpec> = {}): GoalSpec =>
  ({ objective: 'reach loss < 3.28', openEnded: false, tokenBudget: null, secondsBudget: null, costBudgetUsd: null, ...more });

describe('goals', () => {
  it('refuses to let the agent complete, pause or clear an open-ended goal; an operator may, and a bounded goal is the agent\'s to end', () => {
    const open = newGoal(spec({ openEnded: true }), 0);
    expect(checkGoalStop(open, 'complete', 'agent')).toMatch(/open-ended.*cannot have it marked complete/);
    expect(checkGoalStop(open, 'pause', 'agent')).toMatch(/cannot have it paused/);
    expect(checkGoalStop(open, 'clear', 'agent')).toMatch(/cannot have it cleared/);
    expect(checkGoalStop(open, 'clear', 'operator')).toBeNull();
    expect(checkGoalStop(newGoal(spec(), 0), 'complete', 'agent')).toBeNull();
    expect(checkGoalStop(null, 'complete', 'agent')).toMatch(/no open goal/);
    expect(checkGoalStop({ ...newGoal(spec(), 0), status: 'complete' }, 'complete', 'agent')).toMatch(/no open goal/);
  });

  it('names the budget that is spent: tokens, then cost, then time', () => {
    const g = newGoal(spec({ tokenBudget: 100, costBudgetUsd: 1, secondsBudget: 60 }), 0);
    expect(goalBudgetStop(g, 59_000)).toBeNull();
    expect(goalBudgetStop(g, 60_000)).toBe('goal time budget spent: 60s of 60s');
    g.costUsd = 1.5;
    expect(goalBudgetStop(g, 0)).toMatch(/goal cost budget spent: \$1\.5000 of \$1/);
    g.tokensUsed = 100;
    expect(goalBudgetStop(g, 0)).toBe('goal token budget spent: 100 of 100 tokens');
  });

  it('checks a spec before it becomes a goal', () => {
    expect(checkGoalSpec(spec())).toBeNull();
    expect(checkGoalSpec(spec({ objective: '  ' }))).toMatch(/non-empty objective/);
    expect(checkGoalSpec(spec({ objective: 'x'.repeat(4001) }))).toMatch(/limit is 4000/);
    expect(checkGoalSpec(spec({ tokenBudget: 0 }))).toMatch(/tokenBudget must be a positive number/);
  });

  it('re-presents the objective and usage in its continuation, and tells an open-ended goal never to stop', () => {
    const g = newGoal(spec({ tokenBudget: 5000 }), 0);
    g.tokensUsed = 1234;
    const text = goalContinuationText(g, 90_000);
    expect(text).toContain('Objective: reach loss < 3.28');
    expect(text).toContain('tokens 1234 / 5000');
    expect(text).toContain('time 90s');
    expect(text).toContain('goal.complete');
    expect(goalContinuationText(newGoal(spec({ openEnded: true }), 0), 0)).toMatch(/never finished/);
  });

  it('logs the whole goal state in each event', () => {
    const g = newGoal(spec({ costBudgetUsd: 2 }), 1000);
    expect(goalEvent(g, 'set', 61_000)).toEqual({
      type: 'GoalChanged', change: 'set', objective: 'reach loss < 3.28', openEnded: false, status: 'active',
      tokenBudget: null, secondsBudget: null, costBudgetUsd: 2, tokensUsed: 0, costUsd: 0, secondsUsed: 60, reason: null,
    });
  });
});
