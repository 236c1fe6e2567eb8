import type { StoredEvent } from '../../schemas';
import type { RecurEventInput } from '../../schemas/generated/events';
import { formatCostTree } from '../../services/cli/commands/cost';
import { costTree } from '../../services/projector/cost-tree';
import { sampleSession } from './event-samples';

const started = (name: string, depth: number): RecurEventInput => ({
  type: 'SessionStarted', task: 't', name, model: 'scripted', depth, maxDepth: 2, maxTurns: 10, cellTimeoutSeconds: 60,
});
const called = (tokensIn: number, tokensOut: number, costUsd: number, latencyMs = 100, usageSource: 'reported' | 'estimated' = 'reported'): RecurEventInput => ({
  type: 'ModelCalled', turn: 1, model: 'm', provider: 'p', tokensIn, tokensOut, costUsd, latencyMs, response: 'r', stopReason: 'end_turn', toolCalls: [], usageSource,
});
const log = (id: string, events: RecurEventInput[]) => sampleSession(id, events).records as StoredEvent[];

/** A root, a child with a grandchild, and a second child still running; events one second apart in each log. */
const TREE = [
  ...log('r1', [started('root', 0), { type: 'BudgetSet', scope: 'tree', tokens: 1000, costUsd: null, seconds: null, turns: null, note: 'flags' }, called(10, 5, 0.01), { type: 'SessionFailed', kind: 'budget', reason: 'tree token budget spent' }]),
  ...log('r1/a', [started('a', 1), called(100, 50, 0.1), {
    type: 'Compacted', fromSeq: 0, toSeq: 1, droppedTurns: 1, droppedChars: 10, summary: 's', tokensBefore: 9, tokensAfter: 3, tokensIn: 7, tokensOut: 3, costUsd: 0.001,
  }, { type: 'SessionCompleted', answer: 'x' }]),
  ...log('r1/a/x', [started('x', 2), called(1, 2, 0.5, 250, 'estimated'), called(3, 4, 0, 250)]),
  ...log('r1/b', [started('b', 1), called(20, 10, 0)]),
];

describe('the cost tree (services/projector/cost-tree.ts)', () => {
  test("sums each agent's model calls and compactions, and each subtree's total, in any event order", () => {
    const tree = costTree('r1', [...TREE].reverse())!;
    expect(tree).toMatchObject({
      sessionId: 'r1', status: 'failed (budget)', budget: { tokens: 1000 }, wallMs: 3000,
      own: { tokensIn: 10, tokensOut: 5, costUsd: 0.01, calls: 1, modelMs: 100 },
      total: { tokensIn: 141, tokensOut: 74, calls: 5, estimatedCalls: 1 },
    });
    expect(tree.total.costUsd).toBeCloseTo(0.611, 10);
    const [a, b] = tree.children;
    expect(a).toMatchObject({ sessionId: 'r1/a', status: 'completed', own: { tokensIn: 107, tokensOut: 53, calls: 1 }, total: { tokensIn: 111, tokensOut: 59, calls: 3 } });
    expect(a.children[0]).toMatchObject({ sessionId: 'r1/a/x', status: 'running', own: { calls: 2, modelMs: 500 }, wallMs: 2000 });
    expect(b).toMatchObject({ sessionId: 'r1/b', status: 'running', total: { tokensIn: 20, tokensOut: 10 } });
  });

  test('a subtree is its own cost tree; an id the log never started has none', () => {
    expect(costTree('r1/a', TREE)).toMatchObject({ sessionId: 'r1/a', total: { calls: 3 } });
    expect(costTree('r9', TREE)).toBeNull();
  });

  test('recur cost prints one line per agent, indented by depth, with its own spend and its subtree\'s', () => {
    const lines = formatCostTree(costTree('r1', TREE)!);
    expect(lines[0]).toBe('cost of r1: 5 calls, 141 in + 74 out tok (1 estimated), $0.6110, 3.0s (budget 1000 tok)');
    expect(lines[1]).toBe('  r1 [failed (budget)] 1 call, 10 in + 5 out tok, $0.0100, 3.0s (model 0.1s); with sub-agents 5 calls, 141 in + 74 out tok (1 estimated), $0.6110');
    expect(lines[3]).toMatch(/^ {6}r1\/a\/x \[running\] 2 calls, 4 in \+ 6 out tok \(1 estimated\)/);
    expect(lines).toHaveLength(5);
  });
});
