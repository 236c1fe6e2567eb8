import { against, budgetAt } from '../../ui/model/budget';
import { harnessAt } from '../../ui/model/harness-state';
import { manifestNames } from '../../ui/model/manifest';
import { CHECKPOINT_EVERY, replayIndex, type ReplayState } from '../../ui/model/replay';
import { timelineRows } from '../../ui/model/rows';
import { viewerTree } from './ui-fixture';

const plain = (s: ReplayState) => ({ goals: [...s.goals].map(([k, g]) => [k, g.status]), children: [...s.children], snapshot: s.snapshot?.eventId ?? null });

describe('replay state as of an event', () => {
  const { events, harness } = viewerTree();
  const rows = timelineRows(events, harness, 'tree', 'r');
  const at = (id: string) => rows.findIndex((r) => r.event.eventId === id);

  it('folds goals, children and the latest snapshot up to the position', () => {
    const index = replayIndex(rows);
    expect(plain(index.stateAfter(-1))).toEqual({ goals: [], children: [], snapshot: null });
    expect(plain(index.stateAfter(at('r/8')))).toEqual({ goals: [['r', 'active']], children: [['r/a', 'running'], ['r/b', 'running']], snapshot: 'r/6' });
    expect(plain(index.stateAfter(at('r/a/2'))).children).toEqual([['r/a', 'unloaded'], ['r/b', 'running']]);
    expect(plain(index.stateAfter(at('r/a/3'))).children).toEqual([['r/a', 'running'], ['r/b', 'running']]);
    expect(plain(index.stateAfter(rows.length - 1))).toEqual({ goals: [['r', 'complete']], children: [['r/a', 'completed'], ['r/b', 'failed']], snapshot: 'r/6' });
  });

  it('gives the same state from checkpoints as a fold from the start', () => {
    const repeated = Array.from({ length: Math.ceil((3 * CHECKPOINT_EVERY) / rows.length) }, () => rows).flat();
    const index = replayIndex(repeated);
    for (const i of [CHECKPOINT_EVERY - 2, CHECKPOINT_EVERY - 1, CHECKPOINT_EVERY, 2 * CHECKPOINT_EVERY + 3]) {
      const fromStart = replayIndex(repeated.slice(0, i + 1)).stateAfter(i);
      expect(plain(index.stateAfter(i))).toEqual(plain(fromStart));
    }
    // A state handed out is a copy: folding further does not change it.
    const early = index.stateAfter(at('r/8'));
    index.stateAfter(repeated.length - 1);
    expect(plain(early).children).toEqual([['r/a', 'running'], ['r/b', 'running']]);
  });

  it('folds the applied harness edits stamped up to a time', () => {
    expect(harnessAt(harness, 114)).toEqual([]);
    expect(harnessAt(harness, 200).map((e) => [e.kind, e.name, e.value])).toEqual([['memory', 'notes', '"one"']]);
    expect(harnessAt(harness, 1000).map((e) => [e.kind, e.name, e.editId])).toEqual([['memory', 'notes', 'harness:r/0'], ['skill', 'sum', 'harness:r/2']]);
  });

  it("counts the tree's spend up to the position against its budget", () => {
    const lines = budgetAt('r', events, events.findIndex((e) => e.eventId === 'r/3'));
    expect(lines).toEqual([expect.objectContaining({ sessionId: 'r', budget: { tokens: 1000, costUsd: 1, seconds: null, turns: null } })]);
    expect(lines[0].spent.costUsd).toBe(0.25);
    expect(budgetAt('r', events, events.length - 1)[0].spent.costUsd).toBe(0.75);
    expect(budgetAt('r', [], -1)).toEqual([]);
    expect(against(30, 1000, 'tok')).toBe('30 tok of 1,000 tok');
    expect(against(0.25, null, 'usd')).toBe('$0.2500');
  });

  it("lists a snapshot manifest's names and refuses anything else", () => {
    const manifest = {
      format: 'recur.kernel-snapshot/1', coversSeq: 5, python: '3.12', picklers: {}, limits: { maxVariableBytes: null, maxTotalBytes: null }, bytes: 9,
      variables: [{ name: 'x', sha256: 'b'.repeat(64), size: 5, pickler: 'pickle' }], modules: [{ name: 'np', module: 'numpy' }],
      unsaved: [{ name: 'gen', reason: 'generator' }], oversize: [{ name: 'big', size: 1e9, limit: 'variable' }],
    };
    expect(manifestNames(JSON.stringify(manifest))).toEqual({ variables: ['x'], modules: ['np'], missing: ['gen', 'big'] });
    expect(() => manifestNames('{"format":"other"}')).toThrow('not a recur.kernel-snapshot/1 manifest');
    expect(() => manifestNames('nope')).toThrow();
  });
});
