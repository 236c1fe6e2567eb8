import { checkForkPoint, foldFork, forkPoints, rekeyEvent } from '../../activities/fork/plan-fork';
import type { RecurEventInput, StoredEvent } from '../../schemas';
import { chain, ev } from '../helpers/replay-tree-fixture';

const manifest = (n: number) => ({ sha256: `${n}`.repeat(64).slice(0, 64), size: 100 + n });
const snapshotted = (coversSeq: number, n: number): RecurEventInput => ({
  type: 'KernelSnapshotted', manifest: manifest(n), coversSeq, variables: 1, bytes: 10, unsaved: [], oversize: [], durationMs: 5,
});
const cell = (seq: number, code: string): Array<[number, RecurEventInput]> => [[seq, ev.request(code)], [seq + 1, ev.executed(`r/${seq}`, code, '')]];

/**
 *  0 SessionStarted · 1 ModelCalled · 2-3 cell x=1 · 4 ModelCalled · 5-6 cell x=2 · 7 KernelSnapshotted(6)
 *  8 SubagentSpawned · 9 ModelCalled · 10-11 cell x=3 · 12 ModelCalled (answer) · 13 SessionCompleted
 */
function origin(): StoredEvent[] {
  return chain('r', [
    [0, ev.started('root', 0)], [1, ev.model(0)], ...cell(2, 'x = 1'), [4, ev.model(1)], ...cell(5, 'x = 2'), [7, snapshotted(6, 1)],
    [8, ev.spawned('r/kid')], [9, ev.model(2)], ...cell(10, 'x = 3'), [12, ev.model(3, 'the answer')], [13, ev.completed('the answer')],
  ]).records;
}

describe('where a session may be forked', () => {
  test('only after whole steps: never between a reply and its cell, inside a cell, or at or after the end', () => {
    const valid = forkPoints(origin()).flatMap((ok, seq) => (ok ? [seq] : []));
    expect(valid).toEqual([0, 3, 6, 7, 8, 11, 12]);
  });

  test('a seq past the end, or the end itself, is refused with the valid range', () => {
    const events = origin();
    expect(checkForkPoint(events, 'r', 13)).toEqual({
      ok: false, kind: 'range', valid: { min: 0, max: 12 }, reason: 'at must be a seq of r in 0..12 (its events before it ended at seq 13), got 13',
    });
    expect(checkForkPoint(events, 'r', 99)).toMatchObject({ ok: false, kind: 'range', valid: { min: 0, max: 12 } });
    expect(checkForkPoint(events, 'r', -1)).toMatchObject({ ok: false, kind: 'range' });
  });

  test('a seq inside a step is refused, naming the nearest seqs a fork may use', () => {
    expect(checkForkPoint(origin(), 'r', 10)).toEqual({
      ok: false, kind: 'mid-step', valid: { min: 0, max: 12 },
      reason: 'seq 10 of r falls inside a step (a cell or the reply that asked for it is not complete there): fork at 8 or 11',
    });
    expect(checkForkPoint(origin(), 'r', 9)).toMatchObject({ kind: 'mid-step', reason: expect.stringContaining('fork at 8 or 11') });
    expect(checkForkPoint(origin(), 'r', 6)).toEqual({ ok: true });
  });

  test('a sub-agent cannot be forked, and a damaged chain is named with the seq where it breaks', () => {
    const kid = chain('r/kid', [[0, ev.started('kid', 1, 'r')], [1, ev.model(0)]]).records;
    expect(checkForkPoint(kid, 'r/kid', 1)).toMatchObject({ ok: false, kind: 'not-root', reason: 'r/kid is a sub-agent of r: only a root session can be forked' });
    const events = origin();
    const edited = events.map((e) => (e.seq === 4 ? { ...e, event: { ...e.event, response: 'edited' } } as StoredEvent : e));
    expect(checkForkPoint(edited, 'r', 8)).toMatchObject({ ok: false, kind: 'damaged', reason: expect.stringMatching(/^the log of r is damaged at seq 4 \(hash-mismatch/) });
    // The damage lies after the fork point: what is copied is intact.
    expect(checkForkPoint(edited, 'r', 3)).toEqual({ ok: true });
  });
});

describe('what the fork starts from', () => {
  test('the counters as of the fork point and the latest snapshot at or before it', () => {
    const events = origin();
    expect(foldFork(events.slice(0, 12))).toEqual({
      turn: 3, tokens: 45, costUsd: 0, compactions: 0, cellsRun: 3, cellsSinceSnapshot: 1,
      lastSnapshot: { manifest: manifest(1), coversSeq: 6 }, snapshotSeq: 7, children: ['r/kid'],
    });
  });

  test('before the first snapshot there is none: every cell is re-run', () => {
    expect(foldFork(origin().slice(0, 7))).toMatchObject({ turn: 2, cellsRun: 2, cellsSinceSnapshot: 2, lastSnapshot: null, snapshotSeq: null, children: [] });
  });

  test("the origin's own event ids are rewritten to the fork's; child ids and text are not", () => {
    const executed = { ...ev.executed('r/10', 'print("r/10")', 'r/10'), type: 'CellExecuted' } as StoredEvent['event'];
    expect(rekeyEvent(executed, 'r', 'f')).toMatchObject({ requestId: 'f/10', code: 'print("r/10")', outputs: 'r/10' });
    const restored = {
      type: 'KernelRestored', manifest: null, fromSnapshotSeq: null, restored: [], failed: [], replayedCells: ['r/2', 'r/5'], interruptedCell: 'r/10', durationMs: 1,
    } as StoredEvent['event'];
    expect(rekeyEvent(restored, 'r', 'f')).toMatchObject({ replayedCells: ['f/2', 'f/5'], interruptedCell: 'f/10' });
    expect(rekeyEvent(ev.spawned('r/kid') as StoredEvent['event'], 'r', 'f')).toMatchObject({ childId: 'r/kid' });
    // A longer id that merely starts with the origin's is someone else's.
    expect(rekeyEvent({ ...executed, requestId: 'rx/3' } as StoredEvent['event'], 'r', 'f')).toMatchObject({ requestId: 'rx/3' });
  });
});
