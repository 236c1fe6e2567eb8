import { buildPrompt } from '../../activities/prompt/build-prompt';
import { restoreNote } from '../../activities/run-cell';
import type { RecurEventInput } from '../../schemas';
import { formatEventLine } from '../../services/cli/format-event';
import { compareCell } from '../../log/plan-cell-replay';
import { inOrderCollector } from '../../log/in-order-collector';
import { verifyTree } from '../../log/verify-tree';
import { FIXTURE_KEY, chain, ev, records } from '../helpers/replay-tree-fixture';

const forkedFrom = (children: string[] = []): RecurEventInput => ({
  type: 'ForkedFrom', originSessionId: 'r', originSeq: 3, originHash: 'a'.repeat(64), snapshotSeq: null, model: 'scripted', instructionMessageId: null, children,
});
const goal: RecurEventInput = {
  type: 'GoalChanged', change: 'set', objective: 'reach 10', openEnded: false, status: 'active', tokenBudget: null, secondsBudget: null, costBudgetUsd: null,
  tokensUsed: 0, costUsd: 0, secondsUsed: 0, reason: null,
};

/** A fork `f` of `r` at seq 3: r spawned `r/kid` and saw it end before the fork point. */
const forkLog = () => chain('f', [
  [0, ev.started('root', 0)], [1, goal], [2, ev.spawned('r/kid')], [3, ev.childDone('r/kid')], [4, forkedFrom(['r/kid'])], [5, ev.model(0, 'go on')], [6, ev.completed()],
]);

describe('every reader of the log knows a fork', () => {
  test("audit verify passes a fork whose copied history names the origin's children, which its own tree does not hold", () => {
    const c = inOrderCollector('f');
    for (const r of records('f', forkLog().values)) c.accept(r);
    expect(verifyTree('f', c.result(), FIXTURE_KEY.keyring)).toMatchObject({ ok: true, faults: [] });
  });

  test('the same children spawned after the fork point still need their logs', () => {
    const log = chain('f', [[0, ev.started('root', 0)], [1, forkedFrom()], [2, ev.spawned('f/kid')], [3, ev.childDone('f/kid')]]);
    const c = inOrderCollector('f');
    for (const r of records('f', log.values)) c.accept(r);
    expect(verifyTree('f', c.result(), FIXTURE_KEY.keyring).faults).toEqual([expect.objectContaining({ fault: 'missing-child', seq: 3 })]);
  });

  test("the fork's model reads where its history came from and which sub-agents stayed behind, and not the origin's goal", () => {
    const prompt = buildPrompt(forkLog().records);
    expect(prompt.messages.map((m) => m.content).join('\n')).toContain(
      "[this session is a fork of r at its event #3: everything above happened there, and you go on from that point on your own. Your kernel's variables are as they were at that point (restored when your next cell runs); files in the workspace are as they are now. A goal set there is not carried over. The original's sub-agents (r/kid) are not part of this fork",
    );
    expect(prompt.system).not.toContain('reach 10');
    expect(buildPrompt(forkLog().records.slice(0, 4)).system).toContain('reach 10');
  });

  test("a fork's restore is told as one, and replay --verify does not count that note as a difference", () => {
    const note = restoreNote({ manifest: null, fromSnapshotSeq: 6, restored: ['x'], failed: [], replayedCells: ['f/9'], interruptedCell: null, durationMs: 3 }, [], 'forked');
    expect(note).toBe('[your kernel has been restored to its state at the fork point: 1 variable(s) from the snapshot at #6, 1 later cell(s) re-run]\n');
    const cell = { status: 'ok' as const, errorName: null, errorValue: null };
    expect(compareCell({ ...cell, output: `${note}4` }, { ...cell, output: '4' })).toEqual({ kind: 'same' });
    expect(compareCell({ ...cell, output: `${note}4` }, { ...cell, output: '5' })).toMatchObject({ kind: 'differs' });
  });

  test('the CLI shows a ForkedFrom line with its origin, seq and the sub-agents left behind', () => {
    const [, , , , forked] = forkLog().records;
    expect(formatEventLine(forked)).toContain('fork of r at #3 → scripted (1 sub-agent(s) not forked)');
  });
});
