import { parseConfig } from '../../config';
import { ExitError } from '../../errors';
import { longRunRequest } from '../../services/cli/long-run-flags';

describe('recur run --goal / --autonomous', () => {
  it('builds a goal with its budgets, and autonomous mode with gates run in the caller\'s directory', () => {
    expect(longRunRequest({ goal: 'beat 3.28', 'open-ended': true, 'goal-token-budget': '90000', 'goal-cost-usd': '2.5', autonomous: true, gate: ['npm test', 'npm run lint'] as never }, '/work/x')).toEqual({
      goal: { objective: 'beat 3.28', openEnded: true, tokenBudget: 90000, secondsBudget: null, costBudgetUsd: 2.5 },
      autonomous: { gates: ['npm test', 'npm run lint'], gateCwd: '/work/x' },
    });
    expect(longRunRequest({}, '/w')).toEqual({});
  });

  it.each([
    [{ 'goal-token-budget': '5' }, /--goal-token-budget needs --goal/],
    [{ goal: 'g', 'goal-seconds': 'soon' }, /--goal-seconds must be a positive number/],
    [{ gate: ['true'] as never }, /--gate needs --autonomous/],
  ])('refuses %j rather than ignoring it', (flags, why) => {
    expect(() => longRunRequest(flags, '/w')).toThrow(ExitError);
    expect(() => longRunRequest(flags, '/w')).toThrow(why);
  });

  it('takes autonomous limits and the compaction threshold from the environment', () => {
    const { config, errors } = parseConfig({ RECUR_HOME: '/tmp/none', RECUR_AUTONOMOUS_MAX_COST_USD: '12.5', RECUR_AUTONOMOUS_MAX_SECONDS: '600', RECUR_COMPACT_AT_TOKENS: '50000' });
    expect(errors).toEqual([]);
    expect(config.autonomous).toMatchObject({ maxCostUsd: 12.5, maxSeconds: 600, maxTurns: 2000 });
    expect(config.agent.compactAtTokens).toBe(50000);
    expect(parseConfig({ RECUR_HOME: '/tmp/none', RECUR_AUTONOMOUS_MAX_TURNS: '0' }).errors).toEqual(['RECUR_AUTONOMOUS_MAX_TURNS: expected an integer 1..100000, got "0"']);
  });
});
