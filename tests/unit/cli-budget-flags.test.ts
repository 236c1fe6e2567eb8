import { ExitError } from '../../errors';
import { budgetLimits } from '../../services/cli/budget-flags';

describe('recur run --budget-* flags', () => {
  test("map to the tree's budget in the start request's limits", () => {
    expect(budgetLimits({ 'budget-tokens': '50000', 'budget-usd': '2.5', 'budget-seconds': '3600', 'budget-turns': '200' }))
      .toEqual({ maxTokens: 50_000, maxCostUsd: 2.5, maxSeconds: 3600, maxTreeTurns: 200 });
    expect(budgetLimits({})).toEqual({});
  });

  test.each([
    ['budget-tokens', '1.5', /--budget-tokens must be an integer from 1 to 10000000000, got "1.5"/],
    ['budget-usd', '0', /--budget-usd must be a number from 0.01 to 1000000, got "0"/],
    ['budget-seconds', 'soon', /--budget-seconds must be an integer from 1 to 2592000/],
  ])('refuse --%s %s, naming the range', (flag, value, message) => {
    expect(() => budgetLimits({ [flag]: value })).toThrow(ExitError);
    expect(() => budgetLimits({ [flag]: value })).toThrow(message);
  });
});
