import { checkTurns, failureKind, treeBudgetOf } from '../../workflows/plan-next-step';

describe('the checks before each model turn', () => {
  it("stops a session at its own turn cap, saying which cap", () => {
    expect(checkTurns(2, 3)).toBeNull();
    expect(checkTurns(3, 3)).toMatchObject({ kind: 'max_turns', scope: 'session', reason: expect.stringMatching(/^turn limit reached: 3 of 3 model turns used .*RECUR_MAX_TURNS/) });
  });

  it("takes the tree's budget from the root's limits, absent ones unlimited", () => {
    expect(treeBudgetOf({ maxTokens: 10, maxSeconds: null, maxCostUsd: 2 })).toEqual({ tokens: 10, costUsd: 2, seconds: null, turns: null });
    expect(treeBudgetOf({ maxTokens: null, maxSeconds: 60, maxTreeTurns: 5 })).toEqual({ tokens: null, costUsd: null, seconds: 60, turns: 5 });
  });

  it('maps activity error types to failure kinds', () => {
    expect(failureKind('ScriptExhaustedError')).toBe('script_exhausted');
    expect(failureKind('ProviderError')).toBe('model_error');
    expect(failureKind(undefined)).toBe('model_error');
  });
});
