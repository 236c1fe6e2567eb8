import { checkBudget, failureKind } from '../../workflows/plan-next-step';

const limits = { maxTurns: 3, maxTokens: 1000, maxSeconds: 60, cellTimeoutSeconds: 10, maxDepth: 2, turnsPerRun: 100, snapshotEveryCells: 3, idleUnloadSeconds: 1800 };

describe('budget checks before each model turn', () => {
  it('lets a session within every limit go on', () => {
    expect(checkBudget({ turn: 2, tokens: 999, elapsedMs: 59_999 }, limits)).toBeNull();
  });

  it('names the limit that ended the session', () => {
    expect(checkBudget({ turn: 3, tokens: 0, elapsedMs: 0 }, limits)).toEqual({ kind: 'max_turns', reason: 'turn limit reached: 3 of 3 model turns used' });
    expect(checkBudget({ turn: 0, tokens: 1000, elapsedMs: 0 }, limits)?.kind).toBe('budget');
    expect(checkBudget({ turn: 0, tokens: 0, elapsedMs: 60_000 }, limits)?.kind).toBe('timeout');
  });

  it('treats null limits as unlimited', () => {
    expect(checkBudget({ turn: 0, tokens: 1e12, elapsedMs: 1e12 }, { ...limits, maxTokens: null, maxSeconds: null })).toBeNull();
  });

  it('maps activity error types to failure kinds', () => {
    expect(failureKind('ScriptExhaustedError')).toBe('script_exhausted');
    expect(failureKind('ProviderError')).toBe('model_error');
    expect(failureKind(undefined)).toBe('model_error');
  });
});
